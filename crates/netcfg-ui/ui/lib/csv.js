// A small CSV reader (RFC 4180: fields separated by commas, or by the
// separator given; quoted fields may hold separators, quotes doubled, and
// line breaks; lines end with LF or CRLF). Enough for a survey of anchors
// exported from a spreadsheet.

/**
 * The rows of a CSV text, each an array of its fields (strings), with the
 * line number each row started on. Blank lines are skipped. A byte-order mark
 * is dropped. When `separator` is not given, it is guessed from the first
 * line: `;` or a tab when that line holds more of them than commas.
 * @param {string} text
 * @param {string} [separator]
 * @returns {{fields: string[], line: number}[]}
 */
export function parseCsv(text, separator) {
  const source = text.replace(/^\uFEFF/, "");
  const sep = separator || guessSeparator(source);
  /** @type {{fields: string[], line: number}[]} */
  const rows = [];
  /** @type {string[]} */
  let fields = [];
  let field = "";
  let quoted = false;
  let line = 1;
  let rowLine = 1;
  let fieldStarted = false;
  const endRow = () => {
    fields.push(field);
    const blank = fields.length === 1 && fields[0].trim() === "" && !fieldStarted;
    if (!blank) rows.push({ fields, line: rowLine });
    fields = [];
    field = "";
    fieldStarted = false;
  };
  for (let index = 0; index < source.length; index += 1) {
    const char = source[index];
    if (quoted) {
      if (char === '"') {
        if (source[index + 1] === '"') {
          field += '"';
          index += 1;
        } else {
          quoted = false;
        }
      } else {
        if (char === "\n") line += 1;
        field += char;
      }
    } else if (char === '"' && field.trim() === "") {
      quoted = true;
      field = "";
      fieldStarted = true;
    } else if (char === sep) {
      fields.push(field);
      field = "";
      fieldStarted = true;
    } else if (char === "\n" || char === "\r") {
      if (char === "\r" && source[index + 1] === "\n") index += 1;
      endRow();
      line += 1;
      rowLine = line;
    } else {
      field += char;
    }
  }
  if (field !== "" || fields.length > 0 || fieldStarted) endRow();
  return rows.map((row) => ({ fields: row.fields.map((value) => value.trim()), line: row.line }));
}

/** @param {string} text */
function guessSeparator(text) {
  const first = text.split(/\r?\n/, 1)[0] || "";
  const count = (/** @type {string} */ char) => first.split(char).length - 1;
  const commas = count(",");
  if (count(";") > commas) return ";";
  if (count("\t") > commas) return "\t";
  return ",";
}

/**
 * Rows as objects keyed by the header row's names (lower case, spaces and
 * dashes turned into `_`).
 * @param {string} text
 * @returns {{header: string[], records: {values: Record<string, string>, line: number}[]}}
 */
export function parseCsvRecords(text) {
  const rows = parseCsv(text);
  if (rows.length === 0) return { header: [], records: [] };
  const header = rows[0].fields.map((name) => name.toLowerCase().replace(/[\s-]+/g, "_"));
  const records = rows.slice(1).map(({ fields, line }) => {
    /** @type {Record<string, string>} */
    const values = {};
    header.forEach((name, index) => {
      values[name] = fields[index] ?? "";
    });
    return { values, line };
  });
  return { header, records };
}
