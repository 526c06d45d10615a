// Placeholder substitution for notification templates (notifications.md §4.2,
// §4.3, §5) and the escapers that make a value safe for where it lands: a URL,
// a JSON string, a shell word, an HTTP header. Pure functions, no I/O.

/**
 * The upstream substitution algorithm (hc/lib/string.py `replace`): split on
 * `$`; each later piece, with its `$` put back, is matched against the
 * placeholders in the given order; the first placeholder it starts with is
 * replaced once. Substituted values are never rescanned.
 */
export function substitute(template: string, values: ReadonlyArray<readonly [string, string]>): string {
  const pieces = template.split('$');
  let out = pieces[0] ?? '';
  for (let i = 1; i < pieces.length; i++) {
    const piece = '$' + pieces[i]!;
    const hit = values.find(([placeholder]) => piece.startsWith(placeholder));
    out += hit ? hit[1] + piece.slice(hit[0].length) : piece;
  }
  return out;
}

/**
 * Percent-encoding of every character except letters, digits, `_ . - ~` and
 * `/` (Python's `urllib.parse.quote` with its default safe set), over UTF-8.
 */
export function urlEncode(value: string): string {
  let out = '';
  for (const byte of Buffer.from(value, 'utf8')) {
    const c = String.fromCharCode(byte);
    out += /[A-Za-z0-9_.\-~/]/.test(c) ? c : '%' + byte.toString(16).toUpperCase().padStart(2, '0');
  }
  return out;
}

/** The inside of a JSON string literal (no surrounding quotes). */
export function jsonEscape(value: string): string {
  return JSON.stringify(value).slice(1, -1);
}

/**
 * A header value that HTTP can carry: characters outside latin-1 become XML
 * character references (`bār` → `b&#257;r`), line breaks and other control
 * characters become spaces (a value can never start another header).
 */
export function headerSafe(value: string): string {
  let out = '';
  for (const ch of value) {
    const cp = ch.codePointAt(0)!;
    if (cp < 0x20 || cp === 0x7f) out += ' ';
    else if (cp > 0xff) out += `&#${cp};`;
    else out += ch;
  }
  return out;
}

/** A valid HTTP header name (RFC 9110 token). */
export function isHeaderName(name: string): boolean {
  return /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/.test(name);
}

/**
 * A shell command template with placeholders that stand for text someone else
 * wrote (a check's name, its tags): each becomes a reference to the environment
 * variable holding it, written for the quoting it sits in, so that the shell
 * never parses the text itself. `"$NAME"` in double quotes used to carry a
 * quoted value that `$(...)` inside it could still escape; now it is
 * `"${CHECKD_NAME}"`. Unquoted it is `"$CHECKD_NAME"` (one word, as shlex.quote
 * gave), inside single quotes `'"$CHECKD_NAME"'`.
 * `values` are literal (safe) substitutions; `refs` map placeholders to variable names.
 */
export function substituteShell(
  template: string,
  values: ReadonlyArray<readonly [string, string]>,
  refs: ReadonlyArray<readonly [string, string]>,
): string {
  // The placeholder algorithm first, with markers for the references; then one
  // pass that knows the quoting at each marker. Markers are private-use
  // characters: the few values substituted literally are UUIDs, dates and numbers.
  const marked = substitute(template, [...values, ...refs.map(([p], i) => [p, `\uE000${i}\uE001`] as const)]);
  let out = '';
  let quote: 'none' | 'single' | 'double' = 'none';
  for (let i = 0; i < marked.length; i++) {
    const ch = marked[i]!;
    if (ch === '\uE000') {
      const end = marked.indexOf('\uE001', i);
      const name = refs[Number(marked.slice(i + 1, end))]![1];
      out += quote === 'double' ? `\${${name}}` : quote === 'single' ? `'"$${name}"'` : `"$${name}"`;
      i = end;
      continue;
    }
    out += ch;
    if (quote === 'single') {
      if (ch === "'") quote = 'none';
    } else if (ch === '\\') {
      if (i + 1 < marked.length && marked[i + 1] !== '\uE000') out += marked[++i];
    } else if (ch === '"') {
      quote = quote === 'double' ? 'none' : 'double';
    } else if (ch === "'" && quote === 'none') {
      quote = 'single';
    }
  }
  return out;
}

