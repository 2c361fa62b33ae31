import { defineServiceRef } from '../../kernel/api.js';
import type { WidgetData } from './service.js';

/** The plugin's own whole service, for its routes; other plugins use provides.ts (widgetDataProvidesRef). */
export const widgetDataRef = defineServiceRef<WidgetData>('widget-data');
