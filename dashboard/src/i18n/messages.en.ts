import { messages as account } from '../areas/account/messages.en.js';
import { messages as addOns } from '../areas/add-ons/messages.en.js';
import { messages as connections } from '../areas/connections/messages.en.js';
import { messages as dashboards } from '../areas/dashboards/messages.en.js';
import { messages as data } from '../areas/data/messages.en.js';
import { messages as pages } from '../areas/pages/messages.en.js';
import { messages as people } from '../areas/people/messages.en.js';
import { messages as publicApi } from '../areas/public-api/messages.en.js';
import { messages as reports } from '../areas/reports/messages.en.js';
import { messages as settings } from '../areas/settings/messages.en.js';
import { messages as shell } from '../shell/messages.en.js';
import { messages as transfer } from '../areas/transfer/messages.en.js';

/**
 * The whole English catalogue: every string a person can see or hear (aria labels included), in
 * ICU message format, from the shell (shell/messages.en.ts) and each area (areas/<name>/messages.en.ts).
 * English is the source catalogue; the i18n namespace of the API will serve other locales later.
 *
 * The app imports only the type of this module (`MessageId`, so `t(id)` is checked against every
 * id); at run time the shell's strings are in the catalogue from the start and an area's arrive
 * with its screens (i18n/t.ts, areas/area.ts). Tests read the values here.
 */
export const messages = {
  ...shell,
  ...account,
  ...connections,
  ...data,
  ...transfer,
  ...publicApi,
  ...addOns,
  ...pages,
  ...dashboards,
  ...reports,
  ...people,
  ...settings,
};

export type MessageId = keyof typeof messages;
