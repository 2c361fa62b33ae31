/** The scheduled reports' strings. */
export const messages = {
  'reports.title': 'Scheduled reports',
} as const;
