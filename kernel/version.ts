import { readFileSync } from 'node:fs';
import { projectPath } from './paths.js';

const pkg = JSON.parse(readFileSync(projectPath('package.json'), 'utf8')) as { name: string; version: string; license?: string };

export const PRODUCT_NAME = pkg.name;
export const VERSION = pkg.version;
export const LICENSE = pkg.license ?? 'UNLICENSED';
