/**
 * The ICU check of a translated message against its English source (issue 31 §1, decisions IN2).
 *
 * One function for every place a message is written or read back: the server's PUT, bulk and
 * import and `GET /i18n/format-errors`, the lead's test of the shipped locales, and the
 * dashboard's inline check while a person types. So it is pure: it imports only the parser the
 * dashboard formats with (intl-messageformat's own, `@formatjs/icu-messageformat-parser`), and
 * nothing of node or of the server.
 */
import { parse, TYPE, type MessageFormatElement } from '@formatjs/icu-messageformat-parser';

export type IcuProblemKind = 'syntax' | 'placeholders' | 'plural-other' | 'tags';

export interface IcuProblem {
  kind: IcuProblemKind;
  /** In English, for a person. */
  message: string;
  /** `syntax`: where in the text the parser stopped (0-based, UTF-16 code units). */
  offset?: number;
  /** `placeholders`, `tags`: what the source has and what the text has, each sorted (`{name}`, `{count, plural}`, `<b>`). */
  expected?: string[];
  found?: string[];
}

/** The parser's options, as intl-messageformat parses (tags on); `other` is checked here to name it. */
const PARSE_OPTIONS = { requiresOtherClause: false } as const;

/** The parser's error kinds in words (the rest are shown as the kind in lower case). */
const SYNTAX_WORDS: Record<string, string> = {
  EXPECT_ARGUMENT_CLOSING_BRACE: 'a brace { is not closed',
  EMPTY_ARGUMENT: 'an argument {} has no name',
  MALFORMED_ARGUMENT: 'an argument is not a name',
  EXPECT_ARGUMENT_TYPE: 'an argument has a comma but no type',
  INVALID_ARGUMENT_TYPE: 'an argument type is not number, date, time, plural, select or selectordinal',
  EXPECT_PLURAL_ARGUMENT_SELECTOR: 'a plural has no cases',
  EXPECT_SELECT_ARGUMENT_SELECTOR: 'a select has no cases',
  EXPECT_PLURAL_ARGUMENT_OPTIONS: 'a plural case has no {text}',
  EXPECT_SELECT_ARGUMENT_OPTIONS: 'a select case has no {text}',
  DUPLICATE_PLURAL_ARGUMENT_SELECTOR: 'a plural case is given twice',
  DUPLICATE_SELECT_ARGUMENT_SELECTOR: 'a select case is given twice',
  UNMATCHED_CLOSING_TAG: 'a closing tag has no opening tag',
  UNCLOSED_TAG: 'a tag is not closed',
  INVALID_TAG: 'a tag is malformed',
  UNCLOSED_QUOTE_IN_ARGUMENT_STYLE: 'a quote is not closed',
};

interface Parsed {
  elements: MessageFormatElement[] | null;
  problem: IcuProblem | null;
}

function parseMessage(text: string): Parsed {
  try {
    return { elements: parse(text, PARSE_OPTIONS), problem: null };
  } catch (err) {
    const e = err as { message?: string; location?: { start?: { offset?: number } } };
    const kind = String(e.message ?? 'INVALID');
    const offset = e.location?.start?.offset ?? 0;
    const words = SYNTAX_WORDS[kind] ?? kind.toLowerCase().replace(/_/g, ' ');
    return { elements: null, problem: { kind: 'syntax', message: `The message cannot be read at character ${offset + 1}: ${words}.`, offset } };
  }
}

const KIND_OF: Partial<Record<TYPE, string>> = {
  [TYPE.number]: 'number',
  [TYPE.date]: 'date',
  [TYPE.time]: 'time',
  [TYPE.plural]: 'plural',
  [TYPE.select]: 'select',
};

interface Shape {
  args: Set<string>;
  tags: Set<string>;
  /** Plurals and selects without an `other` case, by argument name. */
  withoutOther: string[];
}

function shapeOf(elements: MessageFormatElement[]): Shape {
  const shape: Shape = { args: new Set(), tags: new Set(), withoutOther: [] };
  const walk = (els: MessageFormatElement[]) => {
    for (const el of els) {
      switch (el.type) {
        case TYPE.argument:
          shape.args.add(`{${el.value}}`);
          break;
        case TYPE.number:
        case TYPE.date:
        case TYPE.time:
          shape.args.add(`{${el.value}, ${KIND_OF[el.type]}}`);
          break;
        case TYPE.plural:
        case TYPE.select: {
          const kind = el.type === TYPE.select ? 'select' : el.pluralType === 'ordinal' ? 'selectordinal' : 'plural';
          shape.args.add(`{${el.value}, ${kind}}`);
          if (!Object.prototype.hasOwnProperty.call(el.options, 'other')) shape.withoutOther.push(`{${el.value}, ${kind}}`);
          for (const option of Object.values(el.options)) walk(option.value);
          break;
        }
        case TYPE.tag:
          shape.tags.add(`<${el.value}>`);
          walk(el.children);
          break;
        default:
          break;
      }
    }
  };
  walk(elements);
  return shape;
}

const sorted = (s: Set<string>) => [...s].sort();
const sameSet = (a: Set<string>, b: Set<string>) => a.size === b.size && [...a].every((x) => b.has(x));

/**
 * The problems of `text`, a translation of `source` (both ICU MessageFormat). Without a source
 * (or with one that does not parse), only the text's own syntax and `other` cases are checked.
 * An empty list: the text can be shown.
 */
export function checkMessage(text: string, source?: string | null): IcuProblem[] {
  const parsed = parseMessage(text);
  if (!parsed.elements) return [parsed.problem!];
  const shape = shapeOf(parsed.elements);
  const problems: IcuProblem[] = [];
  for (const arg of shape.withoutOther)
    problems.push({ kind: 'plural-other', message: `${arg} has no "other" case, which every language needs as its last resort.` });
  const src = source == null ? null : parseMessage(source).elements;
  if (src) {
    const expected = shapeOf(src);
    if (!sameSet(expected.args, shape.args))
      problems.push({
        kind: 'placeholders',
        message: 'The placeholders differ from the source’s: keep each {name} and its kind as the source has them.',
        expected: sorted(expected.args),
        found: sorted(shape.args),
      });
    if (!sameSet(expected.tags, shape.tags))
      problems.push({
        kind: 'tags',
        message: 'The tags differ from the source’s: keep each <tag>…</tag> the source has.',
        expected: sorted(expected.tags),
        found: sorted(shape.tags),
      });
  }
  return problems;
}

/** The placeholders of a message as `checkMessage` names them (`{name}`, `{count, plural}`), sorted; [] when it does not parse. */
export function placeholdersOf(text: string): string[] {
  const parsed = parseMessage(text);
  return parsed.elements ? sorted(shapeOf(parsed.elements).args) : [];
}
