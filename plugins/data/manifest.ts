import { definePlugin } from '../../kernel/api.js';
import { DATA_READ, DATA_WRITE } from './access.js';
import { DATA_CHANGED, dataChangedSchema } from './effects.js';
import { DATA_ERRORS } from './errors.js';
import { dataRoutes } from './routes.js';
import { DataService } from './service.js';
import { dataMigrations } from './tables.js';

export default definePlugin<DataService>({
  name: 'data',
  version: '1.0.0',
  description: "Browse and edit the rows of the connections' tables, with undo.",
  requires: ['connections', 'schema'],
  permissions: [
    {
      name: DATA_READ,
      label: 'Read rows',
      description: 'Read rows of the connected databases. A scope narrows it to a connection, a table, some columns.',
      roles: ['editor', 'viewer'],
    },
    {
      name: DATA_WRITE,
      label: 'Edit rows',
      description: 'Create, change and delete rows of the connected databases, and undo those changes. A scope narrows it like data.read.',
      roles: ['editor'],
    },
  ],
  migrations: dataMigrations,
  events: {
    [DATA_CHANGED]: {
      schema: dataChangedSchema,
      permission: DATA_READ,
      description: 'Rows were created, changed or deleted through the API (op bulk for a batch, undo for an undo).',
    },
  },
  errors: DATA_ERRORS,
  routes: dataRoutes,
  setup: (kernel) => new DataService(kernel),
});
