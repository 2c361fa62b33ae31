import { z } from 'zod';
import { dataOf } from '../../kernel/api.js';

const HEX = /^#[0-9a-fA-F]{6}$/;

export const brandingSchema = z
  .strictObject({
    productName: z.string().meta({ description: 'What the dashboard and the sign-in page call the product.' }),
    colors: z.strictObject({ primary: z.string().regex(HEX).nullable().meta({ description: '#rrggbb; null: the dashboard’s own accent' }) }),
    logo: z
      .strictObject({
        url: z.string().meta({ description: '/api/v1/branding/logo' }),
        type: z.enum(['image/png', 'image/jpeg', 'image/webp', 'image/svg+xml']),
        width: z.number().int(),
        height: z.number().int(),
        etag: z.string().meta({ description: 'The logo’s strong ETag: a new one is a new image.' }),
      })
      .nullable(),
    signInMessage: z.string().nullable().meta({ description: 'Shown on the sign-in page; plain text.' }),
  })
  .meta({ id: 'Branding' });
export type Branding = z.infer<typeof brandingSchema>;

export const brandingData = dataOf(brandingSchema);
export const brandingEnvelope = dataOf(z.strictObject({ branding: brandingSchema }));

export const brandingInput = z.strictObject({
  productName: z.string().trim().min(1).max(60).optional(),
  colors: z.strictObject({ primary: z.string().max(20).nullable() }).optional(),
  signInMessage: z.string().max(500).nullable().optional(),
});
export type BrandingInput = z.infer<typeof brandingInput>;

export const isHexColor = (v: string) => HEX.test(v);
