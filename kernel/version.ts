import { readFileSync } from 'node:fs';

const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { name: string; version: string; license?: string };

export const PRODUCT_NAME = pkg.name;
export const VERSION = pkg.version;
export const LICENSE = pkg.license ?? 'UNLICENSED';
