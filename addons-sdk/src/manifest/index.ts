export * from './addon.js';
export * from './declarations.js';
export * from './endpoint.js';
export * from './pattern.js';
