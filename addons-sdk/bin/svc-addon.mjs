#!/usr/bin/env node
// The author's tool. The SDK ships TypeScript sources; tsx's loader runs them, so an author
// needs nothing but this package.
import { register } from 'tsx/esm/api';

register();
const { main } = await import('../src/cli/main.ts');
process.exitCode = await main(process.argv.slice(2));
