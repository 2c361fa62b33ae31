export * from './define.js';
export * from './manifest/index.js';
