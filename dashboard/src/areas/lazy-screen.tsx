import { useEffect, useReducer, type ComponentProps, type ComponentType, type JSX } from 'react';
import { ErrorPanel, Loading } from '../ui';

/**
 * A screen whose code loads when it is first drawn, without suspending. React 19 holds back the
 * content of a Suspense boundary until 300 ms after its fallback was shown (its fallback
 * throttle), so with `lazy()` every first visit of a screen paid 300 ms, and a page that waits on
 * two chunks paid it twice (bench/dashboard-paint.ts measured 600 ms of a 940 ms first paint).
 * This one draws the loading line until the code is there, then the screen; a chunk that fails
 * to load (a deploy replaced it, the network dropped) says so with a retry instead of unmounting
 * the app. `preload` asks for the code before the screen is drawn (App.tsx, for the address the
 * app opens on). `pending` is drawn meanwhile (the loading line unless a smaller placeholder fits,
 * as in the header).
 */
// `ComponentType<any>` as React's own lazy() takes it: any screen, whatever its props.
export function lazyScreen<T extends ComponentType<any>>(load: () => Promise<{ default: T }>, pending: () => JSX.Element | null = () => <Loading />): T {
  let screen: T | null = null;
  let loading: Promise<void> | null = null;
  const start = () =>
    (loading ??= load().then(
      (module) => {
        screen = module.default;
      },
      (error: unknown) => {
        loading = null; // a retry asks again
        throw error;
      },
    ));

  function LazyScreen(props: ComponentProps<T>): JSX.Element | null {
    const [state, dispatch] = useReducer((_: { error: unknown; tries: number }, next: { error: unknown; tries: number }) => next, { error: null, tries: 0 });
    // Whether this drawing had the code: it may have arrived between the drawing and this effect
    // (a preload that finished meanwhile), and then nothing else would draw the screen again.
    const drawn = screen !== null;
    useEffect(() => {
      if (screen) {
        if (!drawn) dispatch({ error: null, tries: state.tries });
        return;
      }
      let live = true;
      start().then(
        () => live && dispatch({ error: null, tries: state.tries }),
        (error: unknown) => live && dispatch({ error, tries: state.tries }),
      );
      return () => {
        live = false;
      };
    }, [state.tries]);
    if (screen) {
      const Screen: ComponentType<ComponentProps<T>> = screen;
      return <Screen {...props} />;
    }
    if (state.error) return <ErrorPanel error={state.error} onRetry={() => dispatch({ error: null, tries: state.tries + 1 })} />;
    return pending();
  }
  return Object.assign(LazyScreen, { preload: () => start() }) as unknown as T;
}

/** A screen's code asked for ahead of its first drawing (lazyScreen's), or nothing for another component. */
export function preloadScreen(component: ComponentType): Promise<void> {
  const preload = (component as { preload?: () => Promise<void> }).preload;
  return preload ? preload() : Promise.resolve();
}
