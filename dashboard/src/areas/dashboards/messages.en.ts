/** The dashboard page's strings (widget grid, widget editor, charts): loaded with the dashboard's code. */
export const messages = {
  'dashboards.title': 'Dashboard',
  'dashboards.empty': 'This dashboard has no widgets yet.',
} as const;
