/**
 * The platform's reading of JSON body text (shared/http/middleware/utf8-body.ts, storable-strings.ts):
 * where bad UTF-8 bytes sit, named by JSON path, and which parsed strings may not be stored. The
 * routes' own tests (test/functions/orders/untrusted-input.test.ts, test/functions/collections/
 * create-collection-untrusted-input.test.ts) check the same through the handlers.
 */
import { describe, expect, it } from 'vitest';
import { unstorable, unstorableStrings } from '../../../shared/http/middleware/storable-strings';
import { decodeUtf8, utf8Issues } from '../../../shared/http/middleware/utf8-body';

/** JSON text with `bytes` in place of every `@@`. */
const withBytes = (json: string, bytes: number[]) =>
  Buffer.concat(json.split('@@').flatMap((part, index) => (index === 0 ? [Buffer.from(part)] : [Buffer.from(bytes), Buffer.from(part)])));

const named = (json: string, bytes = [0xff]) => utf8Issues(withBytes(json, bytes)).map((issue) => `${issue.key}|${issue.message}`);

describe('decodeUtf8', () => {
  it('refuses the sequences a lenient decoder turns into U+FFFD, and keeps every valid character', () => {
    for (const bytes of [[0xc0, 0xaf], [0xff], [0xed, 0xa0, 0x80], [0xed, 0xbf, 0xbf], [0xe2, 0x82], [0xf4, 0x90, 0x80, 0x80], [0x80]])
      expect(decodeUtf8(Buffer.from(bytes)), Buffer.from(bytes).toString('hex')).toBeUndefined();
    expect(decodeUtf8(Buffer.from('naïve ✓ 🪙 \uFFFD', 'utf8'))).toBe('naïve ✓ 🪙 \uFFFD');
  });
});

describe('utf8Issues', () => {
  it('names the JSON path of each string holding bad bytes, nested objects and array items included', () => {
    expect(named('{"a":"@@","b":{"c":[1,"ok",{"d":"x@@"}]},"e":"@@"}')).toEqual([
      'a|is not valid UTF-8',
      'b.c.2.d|is not valid UTF-8',
      'e|is not valid UTF-8',
    ]);
  });

  it('reads escaped quotes and backslashes in strings and keys', () => {
    expect(named('{"a\\"b":"x\\\\","c\\\\":"\\"@@\\""}')).toEqual(['c\\|is not valid UTF-8']);
  });

  it('names the object whose field name holds bad bytes, and goes on reading', () => {
    expect(named('{"o":{"k@@":1,"v":"@@"},"@@":2}')).toEqual([
      'o|has a field name that is not valid UTF-8',
      'o.v|is not valid UTF-8',
      '|The request body has a field name that is not valid UTF-8',
    ]);
  });

  it('says the body is not valid UTF-8 when the bytes are outside any string or the JSON is cut short', () => {
    expect(named('{"a":1@@}')).toEqual(['|The request body is not valid UTF-8']);
    expect(named('"@@"')).toEqual(['|The request body is not valid UTF-8']);
    expect(named('{"a":"@@')).toEqual(['|The request body is not valid UTF-8']);
    expect(named('@@{"a":1}')).toEqual(['|The request body is not valid UTF-8']);
  });
});

describe('unstorableStrings', () => {
  it('accepts every other string, surrogate pairs and U+FFFD included', () => {
    for (const text of ['', 'plain', 'naïve', '🪙', '\ud83e\ude99', '\uFFFD', '\u0001\u001f\u007f'])
      expect(unstorable(text), text).toBeUndefined();
    expect(unstorableStrings({ a: ['🪙', { b: 'ok' }], c: 1, d: null, e: true })).toEqual([]);
  });

  it('names every string holding U+0000 or an unpaired surrogate, and every object with such a field name', () => {
    const body = JSON.parse('{"a":"x\\u0000","b":[{"c":"\\ud800"}],"d\\udc00":1,"e":{"\\u0000":2,"f":"\\ud83e"},"g":"\\udc00\\ud800"}');
    expect(unstorableStrings(body).map((issue) => `${issue.key}|${issue.message.split(' (')[0]}`)).toEqual([
      '|The request body has a field name that must not contain an unpaired surrogate',
      'a|must not contain U+0000',
      'b.0.c|must not contain an unpaired surrogate',
      'e|has a field name that must not contain U+0000',
      'e.f|must not contain an unpaired surrogate',
      'g|must not contain an unpaired surrogate',
    ]);
  });

  it('walks a body nested as deep as 64 KiB allows without overflowing the stack', () => {
    const depth = 30_000;
    const body = JSON.parse(`${'['.repeat(depth)}"\\u0000"${']'.repeat(depth)}`);
    const issues = unstorableStrings(body);
    expect(issues).toHaveLength(1);
    expect(issues[0]!.key.split('.')).toHaveLength(depth);
  });
});
