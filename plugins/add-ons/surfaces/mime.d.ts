/**
 * mime 3 (a dependency of @fastify/static's @fastify/send, hoisted) ships no types; this is
 * the part of its API that bundle.ts uses.
 */
declare module 'mime' {
  const mime: { getType(path: string): string | null; getExtension(type: string): string | null };
  export default mime;
}
