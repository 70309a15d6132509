// Checks the message catalogues under a folder laid out as <surface>/<locale>.json:
// every shipped locale has a file, exactly English's keys, and the same
// arguments in each message; every message parses as ICU MessageFormat.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse, TYPE, type MessageFormatElement } from '@formatjs/icu-messageformat-parser';
import { DEFAULT_LOCALE, LOCALES } from '../../web/i18n/locales.ts';

function argumentsOf(elements: MessageFormatElement[], into = new Set<string>()): Set<string> {
  for (const el of elements) {
    if (el.type === TYPE.argument || el.type === TYPE.number || el.type === TYPE.date || el.type === TYPE.time) into.add(el.value);
    if (el.type === TYPE.select || el.type === TYPE.plural) {
      into.add(el.value);
      for (const option of Object.values(el.options)) argumentsOf(option.value, into);
    }
    if (el.type === TYPE.tag) argumentsOf(el.children, into);
  }
  return into;
}

export function surfacesIn(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).filter((d) => d.isDirectory()).map((d) => d.name).sort();
}

/** One line per problem, naming the surface, locale and key. */
export function catalogueProblems(dir: string): string[] {
  const problems: string[] = [];
  for (const surface of surfacesIn(dir)) {
    const read = (locale: string): Record<string, string> | null => {
      const file = join(dir, surface, `${locale}.json`);
      return existsSync(file) ? JSON.parse(readFileSync(file, 'utf8')) : null;
    };
    const english = read(DEFAULT_LOCALE);
    if (!english) {
      problems.push(`${surface}: no ${DEFAULT_LOCALE}.json`);
      continue;
    }
    const args = (surfaceLocale: string, key: string, text: string): Set<string> | null => {
      try {
        return argumentsOf(parse(text));
      } catch (e) {
        problems.push(`${surfaceLocale} "${key}": not ICU MessageFormat (${(e as Error).message})`);
        return null;
      }
    };
    for (const locale of LOCALES) {
      const messages: Record<string, string> | null = locale === DEFAULT_LOCALE ? english : read(locale);
      const at = `${surface}/${locale}`;
      if (!messages) {
        problems.push(`${at}: no ${locale}.json`);
        continue;
      }
      for (const key of Object.keys(english)) {
        if (!(key in messages)) problems.push(`${at}: missing key "${key}"`);
      }
      for (const [key, text] of Object.entries(messages)) {
        if (!(key in english)) {
          problems.push(`${at}: key "${key}" is not in ${DEFAULT_LOCALE}.json`);
          continue;
        }
        if (typeof text !== 'string' || text.trim() === '') {
          problems.push(`${at}: "${key}" is empty`);
          continue;
        }
        const mine = args(at, key, text);
        const theirs = locale === DEFAULT_LOCALE ? mine : args(`${surface}/${DEFAULT_LOCALE}`, key, english[key]!);
        if (mine && theirs && [...mine].sort().join() !== [...theirs].sort().join()) {
          problems.push(`${at}: "${key}" uses {${[...mine].join(', ')}}, English uses {${[...theirs].join(', ')}}`);
        }
      }
    }
  }
  return problems;
}
