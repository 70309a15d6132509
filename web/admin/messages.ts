// What the server says in English (the CLI, the order block, the API's English
// fields) comes from the admin pages' own catalogue, so a text exists once:
// web/i18n/messages/admin/en.json. The pages translate the same keys.
import en from '../i18n/messages/admin/en.json' with { type: 'json' };
import { translator, type Catalogues } from '../i18n/messages.ts';

export type AdminMessageKey = keyof typeof en;

export const english = translator({ en } as unknown as Catalogues, 'en');

/** Whether the catalogue has words for a key built from a stored code. */
export const hasMessage = (key: string): boolean => key in en;

/** True when every key in K is in the catalogue: a type-level check for codes that need words. */
export type AllInCatalogue<K extends string> = [Exclude<K, AdminMessageKey>] extends [never] ? true : Exclude<K, AdminMessageKey>;
