import type { UseMutationOptions } from '@tanstack/react-query';

/**
 * What a screen may add to an area's mutation hook: its own reactions (onSuccess, onError…),
 * never the request, which is the area's api.ts's to make.
 */
export type MutationOptions<TData, TVars = void> = Omit<UseMutationOptions<TData, Error, TVars>, 'mutationFn'>;

/** The answer of a request function: `MutationOptions<Answer<typeof createUser>, …>`. */
export type Answer<F> = F extends (...args: never[]) => Promise<infer R> ? R : never;
