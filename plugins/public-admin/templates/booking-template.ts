import type { MailTemplate, MailTemplates } from '../../../kernel/api.js';
import { BOOKING_CONFIRMATION_TEMPLATE, type BookingConfirmationVars } from '../provides.js';

/** Example values for a test send, so an edited template can be seen filled in. */
export const BOOKING_SAMPLE_VARS: BookingConfirmationVars = {
  code: 'K7Q2-94XD',
  time: 'Friday 14 March, 19:30',
  party: '4',
  cancelWindow: '2 hours',
  manageLink: 'https://example.com/booking?code=K7Q2-94XD',
};

const html = (lines: string[]) => lines.map((l) => `<p>${l}</p>`).join('');

/**
 * The seed's booking confirmation (Public API operations rule 4): code, time on the venue's
 * clock, party size, cancellation window and a manage link. English is the fallback of every
 * other locale (D15); German and French ship as well.
 */
const DEFAULTS: Record<string, MailTemplate> = {
  en: {
    subject: 'Your booking {{code}}: {{time}}',
    text: [
      'Thank you, your booking is confirmed.',
      '',
      'Booking code: {{code}}',
      'Time: {{time}}',
      'Party: {{party}}',
      '',
      'You can change or cancel it online until {{cancelWindow}} before the time:',
      '{{manageLink}}',
      '',
      'Keep this e-mail: the code and your e-mail address let you manage the booking.',
      '',
    ].join('\n'),
    html: html([
      'Thank you, your booking is confirmed.',
      'Booking code: <strong>{{code}}</strong><br>Time: {{time}}<br>Party: {{party}}',
      'You can change or cancel it online until {{cancelWindow}} before the time:<br><a href="{{manageLink}}">{{manageLink}}</a>',
      'Keep this e-mail: the code and your e-mail address let you manage the booking.',
    ]),
  },
  de: {
    subject: 'Ihre Reservierung {{code}}: {{time}}',
    text: [
      'Vielen Dank, Ihre Reservierung ist bestätigt.',
      '',
      'Reservierungscode: {{code}}',
      'Zeit: {{time}}',
      'Personen: {{party}}',
      '',
      'Sie können sie bis {{cancelWindow}} vor dem Termin online ändern oder stornieren:',
      '{{manageLink}}',
      '',
      'Bewahren Sie diese E-Mail auf: Mit dem Code und Ihrer E-Mail-Adresse verwalten Sie die Reservierung.',
      '',
    ].join('\n'),
    html: html([
      'Vielen Dank, Ihre Reservierung ist bestätigt.',
      'Reservierungscode: <strong>{{code}}</strong><br>Zeit: {{time}}<br>Personen: {{party}}',
      'Sie können sie bis {{cancelWindow}} vor dem Termin online ändern oder stornieren:<br><a href="{{manageLink}}">{{manageLink}}</a>',
      'Bewahren Sie diese E-Mail auf: Mit dem Code und Ihrer E-Mail-Adresse verwalten Sie die Reservierung.',
    ]),
  },
  fr: {
    subject: 'Votre réservation {{code}} : {{time}}',
    text: [
      'Merci, votre réservation est confirmée.',
      '',
      'Code de réservation : {{code}}',
      'Heure : {{time}}',
      'Personnes : {{party}}',
      '',
      "Vous pouvez la modifier ou l'annuler en ligne jusqu'à {{cancelWindow}} avant l'heure :",
      '{{manageLink}}',
      '',
      'Gardez cet e-mail : le code et votre adresse e-mail vous permettent de gérer la réservation.',
      '',
    ].join('\n'),
    html: html([
      'Merci, votre réservation est confirmée.',
      'Code de réservation : <strong>{{code}}</strong><br>Heure : {{time}}<br>Personnes : {{party}}',
      "Vous pouvez la modifier ou l'annuler en ligne jusqu'à {{cancelWindow}} avant l'heure :<br><a href=\"{{manageLink}}\">{{manageLink}}</a>",
      'Gardez cet e-mail : le code et votre adresse e-mail vous permettent de gérer la réservation.',
    ]),
  },
};

export function registerBookingTemplate(templates: MailTemplates): void {
  for (const [locale, tpl] of Object.entries(DEFAULTS)) templates.register(BOOKING_CONFIRMATION_TEMPLATE, locale, tpl);
}
