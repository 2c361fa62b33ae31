import { defineServiceRef } from '../../kernel/api.js';
import type { BootstrapService } from './service.js';

/** This plugin's own service, for its routes (it provides nothing to others). */
export const bootstrapServiceRef = defineServiceRef<BootstrapService>('bootstrap');
