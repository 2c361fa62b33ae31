import { describe, expect, it } from 'vitest';
import { messages } from './messages.js';

/**
 * No builder's notes reach a person (issue 29, point 8): the catalogue (the shell's and every
 * area's messages.en.ts, which is every string the dashboard shows) says what a screen does, never
 * that it is unfinished. Each pattern is a note a builder leaves; a "placeholder" of an e-mail
 * template (a name filled in when sending) is a word of the product, so only "a placeholder
 * screen" and the like are refused.
 */
const NOTES: ReadonlyArray<[name: string, pattern: RegExp]> = [
  ['arrive one by one', /arrive one by one/i],
  ['not built yet', /not (?:built|implemented|ready) yet/i],
  ['coming soon', /coming soon/i],
  ['TODO', /\bTODO\b/],
  ['FIXME', /\bFIXME\b/],
  ['TBD', /\bTBD\b/],
  ['placeholder', /\b(?:is a|just a|temporary) placeholder\b|\bplaceholder (?:text|screen|page|area)\b/i],
  ['lorem ipsum', /lorem ipsum/i],
  ['work in progress', /work in progress/i],
  ['later parts of the dashboard', /later (?:parts|versions|issues)/i],
];

/** The notes a text holds, by name. */
const notesIn = (text: string) => NOTES.filter(([, pattern]) => pattern.test(text)).map(([name]) => name);

describe('the message catalogue holds no builder’s notes', () => {
  it('recognises the notes it looks for', () => {
    expect(notesIn('The areas in the menu arrive one by one.')).toEqual(['arrive one by one']);
    expect(notesIn('Reports are coming soon (TODO).')).toEqual(['coming soon', 'TODO']);
    expect(notesIn('This screen is a placeholder.')).toEqual(['placeholder']);
    expect(notesIn('As you type, with each placeholder shown as [name].')).toEqual([]);
  });

  it('finds none in any string a person can see', () => {
    const found = Object.entries(messages as Record<string, string>).flatMap(([id, text]) => notesIn(text).map((note) => `${id}: "${note}" in "${text}"`));
    expect(found).toEqual([]);
  });
});
