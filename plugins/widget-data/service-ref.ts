import { defineServiceRef } from '../../kernel/api.js';
import type { WidgetData } from './service.js';

/** The plugin's own service, for its routes; other plugins reach nothing of widget-data. */
export const widgetDataRef = defineServiceRef<WidgetData>('widget-data');
