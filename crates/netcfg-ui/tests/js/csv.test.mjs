// The CSV reader of the anchor survey import (ui/lib/csv.js).

import { test } from "node:test";
import assert from "node:assert/strict";
import { parseCsv, parseCsvRecords } from "../../ui/lib/csv.js";

test("fields are split on commas and trimmed, with each row's line number", () => {
  assert.deepEqual(parseCsv("a, b ,c\n1,2,3\n"), [
    { fields: ["a", "b", "c"], line: 1 },
    { fields: ["1", "2", "3"], line: 2 },
  ]);
});

test("quoted fields hold separators, doubled quotes and line breaks", () => {
  const rows = parseCsv('name,note\n"Smith, J","said ""hi""\nthen left"\nnext,row\n');
  assert.deepEqual(rows[1].fields, ["Smith, J", 'said "hi"\nthen left']);
  assert.equal(rows[1].line, 2);
  // The quoted line break counts: the next row starts on line 4.
  assert.deepEqual(rows[2], { fields: ["next", "row"], line: 4 });
});

test("CRLF line ends, a byte-order mark and blank lines", () => {
  const rows = parseCsv("\uFEFFa,b\r\n\r\n1,2\r\n");
  assert.deepEqual(rows.map((row) => row.fields), [["a", "b"], ["1", "2"]]);
  assert.deepEqual(rows.map((row) => row.line), [1, 3]);
});

test("the separator is guessed from the first line: semicolons or tabs when they outnumber commas", () => {
  assert.deepEqual(parseCsv("a;b;c\n1,5;2;3").map((row) => row.fields), [["a", "b", "c"], ["1,5", "2", "3"]]);
  assert.deepEqual(parseCsv("a\tb\n1\t2").map((row) => row.fields), [["a", "b"], ["1", "2"]]);
  assert.deepEqual(parseCsv("a;b\n1;2", ",").map((row) => row.fields), [["a;b"], ["1;2"]]);
});

test("a last line without a line end, and empty fields, are kept", () => {
  assert.deepEqual(parseCsv("a,,c\n,").map((row) => row.fields), [["a", "", "c"], ["", ""]]);
});

test("records are keyed by the header's names in lower case, spaces and dashes as _", () => {
  const { header, records } = parseCsvRecords("Serial Number,X-mm,Name\n0A:1B,100\n");
  assert.deepEqual(header, ["serial_number", "x_mm", "name"]);
  assert.deepEqual(records, [{ values: { serial_number: "0A:1B", x_mm: "100", name: "" }, line: 2 }]);
  assert.deepEqual(parseCsvRecords(""), { header: [], records: [] });
});
