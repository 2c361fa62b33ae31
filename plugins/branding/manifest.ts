import { z } from 'zod';
import { definePlugin } from '../../kernel/api.js';
import { BRANDING_WRITE, brandingRoutes } from './routes.js';
import { BRANDING_CHANGED, BrandingService } from './service.js';

export default definePlugin<BrandingService>({
  name: 'branding',
  version: '1.0.0',
  description: 'The product name, primary colour, logo and sign-in message (issue 31 §2).',
  permissions: [
    // No role but admin by declaration: "writes to branding are admin operations" (the seed).
    { name: BRANDING_WRITE, label: 'Change the branding', description: 'Change the product name, colour, logo and sign-in message.' },
  ],
  events: {
    [BRANDING_CHANGED]: {
      schema: z.strictObject({}),
      permission: 'self',
      description: 'The branding changed: read GET /branding again.',
    },
  },
  errors: {
    BRANDING_LOGO_INVALID: { status: 400, message: 'The logo cannot be used (params.reason says why).' },
  },
  routes: brandingRoutes,
  setup: (kernel) => new BrandingService(kernel),
});
