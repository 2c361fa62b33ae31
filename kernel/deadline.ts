/**
 * Resolves like `work`, or rejects with `onTimeout()` after `ms`; a late rejection of `work` is
 * swallowed. One promise and one timer, no async function or race around them: a cheap widget
 * pays this on every statement (WD10).
 */
export function withDeadline<T>(work: Promise<T>, ms: number, onTimeout: () => Error): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => reject(onTimeout()), ms);
    work.then(
      (value) => {
        clearTimeout(timer);
        resolve(value);
      },
      (err: unknown) => {
        clearTimeout(timer);
        reject(err);
      },
    );
  });
}
