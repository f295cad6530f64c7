//! docs/architecture.md and docs/tunables.md against the code: every row
//! of the `## Tunables` table names a file and a constant (or a field of a
//! `Default` impl) whose declared value must be the row's value, the
//! architecture stays short enough to read in ten minutes, and every crate
//! of the workspace is on its map.

use std::path::{Path, PathBuf};

/// The most characters the document may hold.
const LIMIT: usize = 25_000;

/// Fewer rows than this means the table was lost, not trimmed.
const MIN_TUNABLES: usize = 10;

/// The folders whose subfolders with a `Cargo.toml` are crates.
const CRATE_FOLDERS: [&str; 3] = ["crates", "bins", "tools"];

const DOCUMENT: &str = "docs/architecture.md";

/// Where the Tunables table is kept (a reference, linked from `DOCUMENT`).
const TUNABLES: &str = "docs/tunables.md";

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn document() -> String {
    read(DOCUMENT)
}

fn read(document: &str) -> String {
    let path = root().join(document);
    std::fs::read_to_string(&path)
        .unwrap_or_else(|error| panic!("{document} must exist ({}): {error}", path.display()))
}

/// One row of the Tunables table.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Tunable {
    /// The row's line in the document (1-based).
    line: usize,
    value: String,
    file: String,
    name: String,
}

/// Whitespace collapsed, and none just inside brackets or before a closing
/// one after a trailing comma, so a declaration rustfmt spread over lines
/// reads as one line.
fn normalise(text: &str) -> String {
    let collapsed = text.split_whitespace().collect::<Vec<_>>().join(" ");
    let mut out = collapsed
        .replace("( ", "(")
        .replace(" )", ")")
        .replace("[ ", "[")
        .replace(" ]", "]");
    for close in [")", "]"] {
        out = out.replace(&format!(",{close}"), close);
    }
    out
}

/// The text between backticks in `cell`, in order.
fn code_spans(cell: &str) -> Vec<String> {
    cell.split('`')
        .skip(1)
        .step_by(2)
        .map(|span| span.trim().to_owned())
        .collect()
}

/// The cells of a table row (`| a | b |`), `\|` kept inside a cell.
fn cells(row: &str) -> Vec<String> {
    let inner = row.trim().trim_start_matches('|').trim_end_matches('|');
    let mut cells = vec![String::new()];
    let mut escaped = false;
    for character in inner.chars() {
        match character {
            '|' if !escaped => cells.push(String::new()),
            _ => {
                escaped = character == '\\';
                if let Some(cell) = cells.last_mut() {
                    cell.push(character);
                }
            }
        }
    }
    cells
        .iter()
        .map(|cell| cell.replace("\\|", "|").trim().to_owned())
        .collect()
}

/// The rows of the `## Tunables` table, or what to fix in the document.
fn tunables(document: &str) -> Result<Vec<Tunable>, Vec<String>> {
    let lines: Vec<&str> = document.lines().collect();
    let Some(start) = lines.iter().position(|line| line.trim() == "## Tunables") else {
        return Err(vec![format!(
            "{TUNABLES} has no `## Tunables` section: add it, with the table `| tunable | value | where |`"
        )]);
    };
    let section = lines[start + 1..]
        .iter()
        .enumerate()
        .take_while(|(_, line)| !line.starts_with("## "))
        .map(|(offset, line)| (start + 2 + offset, *line));
    let table: Vec<(usize, &str)> = section
        .skip_while(|(_, line)| !line.trim_start().starts_with('|'))
        .take_while(|(_, line)| line.trim_start().starts_with('|'))
        .collect();
    let mut problems = Vec::new();
    let header = table.first().map(|(_, line)| cells(line));
    if header.as_deref()
        != Some(&["tunable".to_owned(), "value".to_owned(), "where".to_owned()][..])
    {
        return Err(vec![format!(
            "{TUNABLES}, ## Tunables: the first table must start with the header `| tunable | value | where |` (found {header:?})"
        )]);
    }
    let mut rows = Vec::new();
    for (line, text) in table.iter().skip(2) {
        let row = cells(text);
        let [_, value, place] = row.as_slice() else {
            problems.push(format!(
                "{TUNABLES}:{line}: a Tunables row needs three cells (tunable | value | where): {text}"
            ));
            continue;
        };
        let value = match code_spans(value).as_slice() {
            [value] if !value.is_empty() => value.clone(),
            _ => {
                problems.push(format!(
                    "{TUNABLES}:{line}: write the value as one code span, as the code spells it (e.g. `1 << 20` or `Duration::from_secs(5)`): {text}"
                ));
                continue;
            }
        };
        let (file, name) = match code_spans(place).as_slice() {
            [file, name] => (file.clone(), name.clone()),
            _ => {
                problems.push(format!(
                    "{TUNABLES}:{line}: write `where` as two code spans, the file then the constant (`NAME`) or default field (`Type::field`): {text}"
                ));
                continue;
            }
        };
        rows.push(Tunable {
            line: *line,
            value,
            file,
            name,
        });
    }
    if problems.is_empty() {
        Ok(rows)
    } else {
        Err(problems)
    }
}

/// The initialiser of `name` in `source`: a `const NAME`/`static NAME`
/// declaration, or with `Type::field` the field `field` in
/// `impl Default for Type`. The error says what is wrong.
fn initialiser(source: &str, name: &str) -> Result<String, String> {
    let lines: Vec<&str> = source.lines().collect();
    match name.split_once("::") {
        Some((kind, field)) => default_field(&lines, kind, field),
        None => constant(&lines, name),
    }
}

fn constant(lines: &[&str], name: &str) -> Result<String, String> {
    let declares = |line: &&str| {
        let line = normalise(line);
        !line.starts_with("//")
            && [format!("const {name}:"), format!("static {name}:")]
                .iter()
                .any(|declaration| {
                    line.starts_with(declaration.as_str())
                        || line.contains(&format!(" {declaration}"))
                })
    };
    let found: Vec<usize> = (0..lines.len())
        .filter(|&at| declares(&lines[at]))
        .collect();
    let at = match found.as_slice() {
        [at] => *at,
        [] => {
            return Err(format!(
                "no `const {name}` or `static {name}` is declared there"
            ));
        }
        _ => {
            return Err(format!(
                "`{name}` is declared {} times there: make the name unique in that file",
                found.len()
            ));
        }
    };
    let mut declaration = String::new();
    for line in &lines[at..] {
        declaration.push_str(line);
        declaration.push(' ');
        if line.contains(';') {
            break;
        }
    }
    let Some((_, value)) = declaration.split_once('=') else {
        return Err(format!(
            "`{name}` has no `= value` in `{}`",
            normalise(&declaration)
        ));
    };
    let value = value.trim().trim_end_matches(';').trim();
    Ok(normalise(value))
}

fn default_field(lines: &[&str], kind: &str, field: &str) -> Result<String, String> {
    let opening = format!("impl Default for {kind} ");
    let Some(start) = lines
        .iter()
        .position(|line| normalise(line).starts_with(opening.as_str()))
    else {
        return Err(format!("there is no `impl Default for {kind}`"));
    };
    let mut depth = 0_i64;
    let mut end = start;
    for (at, line) in lines.iter().enumerate().skip(start) {
        depth += line.matches('{').count() as i64 - line.matches('}').count() as i64;
        end = at;
        if depth <= 0 && at > start {
            break;
        }
    }
    let block = &lines[start..=end];
    let prefix = format!("{field}:");
    let found: Vec<usize> = (0..block.len())
        .filter(|&at| block[at].trim_start().starts_with(prefix.as_str()))
        .collect();
    let at = match found.as_slice() {
        [at] => *at,
        [] => return Err(format!("`impl Default for {kind}` sets no field `{field}`")),
        _ => {
            return Err(format!(
                "`impl Default for {kind}` sets `{field}` more than once"
            ));
        }
    };
    let mut value = String::new();
    for line in &block[at..] {
        value.push_str(line);
        value.push(' ');
        let open = value.matches(['(', '[']).count();
        let closed = value.matches([')', ']']).count();
        if line.trim_end().ends_with(',') && open == closed {
            break;
        }
    }
    let value = value.trim_start().trim_start_matches(prefix.as_str());
    Ok(normalise(value.trim().trim_end_matches(',')))
}

/// What is wrong with `row`, checked against the file it names.
fn check(row: &Tunable) -> Option<String> {
    let place = format!(
        "{DOCUMENT}:{}: tunable `{}` in `{}`",
        row.line, row.name, row.file
    );
    let path = root().join(&row.file);
    let source = match std::fs::read_to_string(&path) {
        Ok(source) => source,
        Err(error) => {
            return Some(format!(
                "{place}: cannot read the file ({error}): fix the path in the `where` column (relative to the repository's root)"
            ));
        }
    };
    match initialiser(&source, &row.name) {
        Err(why) => Some(format!(
            "{place}: {why}: fix the name in the `where` column, or drop the row if the tunable is gone"
        )),
        Ok(value) if value == normalise(&row.value) => None,
        Ok(value) => Some(format!(
            "{place}: the code says `{value}`, the table says `{}`: write `{value}` in the value column (or change the code back)",
            row.value
        )),
    }
}

#[test]
fn every_tunable_has_the_value_the_code_gives_it() {
    let rows = match tunables(&read(TUNABLES)) {
        Ok(rows) => rows,
        Err(problems) => panic!("{}", problems.join("\n")),
    };
    assert!(
        rows.len() >= MIN_TUNABLES,
        "{TUNABLES}: the Tunables table lists {} tunables; it should list every one a newcomer or operator needs (at least {MIN_TUNABLES})",
        rows.len()
    );
    let problems: Vec<String> = rows.iter().filter_map(check).collect();
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn the_document_reads_in_ten_minutes() {
    let length = document().chars().count();
    assert!(
        length <= LIMIT,
        "{DOCUMENT} has {length} characters, more than {LIMIT}: shorten it (move measured figures to docs/benchmarks.md or docs/reliability.md and link to them)"
    );
}

#[test]
fn every_crate_is_on_the_map() {
    let document = document();
    let mut missing = Vec::new();
    for folder in CRATE_FOLDERS {
        let Ok(entries) = std::fs::read_dir(root().join(folder)) else {
            continue;
        };
        for entry in entries.flatten() {
            if !entry.path().join("Cargo.toml").is_file() {
                continue;
            }
            let name = format!("{folder}/{}", entry.file_name().to_string_lossy());
            if !document.contains(&name) {
                missing.push(name);
            }
        }
    }
    if root().join("xtask/Cargo.toml").is_file() && !document.contains("xtask") {
        missing.push("xtask".to_owned());
    }
    missing.sort();
    assert!(
        missing.is_empty(),
        "{DOCUMENT} does not name {}: add each to the code map (what it is, its invariants)",
        missing.join(", ")
    );
}

const SOURCE: &str = "\
/// Doc.
pub const LIMIT: usize = 1 << 20;
// const COMMENTED: u8 = 1;
pub(crate) const PERIOD: Duration =
    Duration::from_millis(1_000 / RATE as u64);
static TWICE: u8 = 1;
const TWICE: u8 = 2;
pub struct Options { pub timeout: Duration }
impl Default for Options {
    fn default() -> Self {
        Self {
            timeout: Duration::from_secs(
                5,
            ),
        }
    }
}
fn other() { let timeout: Duration = Duration::from_secs(9); }
";

#[test]
fn a_constant_is_read_whole_even_over_lines() {
    assert_eq!(initialiser(SOURCE, "LIMIT").as_deref(), Ok("1 << 20"));
    assert_eq!(
        initialiser(SOURCE, "PERIOD").as_deref(),
        Ok("Duration::from_millis(1_000 / RATE as u64)")
    );
    assert!(initialiser(SOURCE, "COMMENTED").is_err());
    assert!(
        initialiser(SOURCE, "TWICE")
            .unwrap_err()
            .contains("2 times")
    );
    assert!(initialiser(SOURCE, "IMIT").is_err());
}

#[test]
fn a_default_field_is_read_from_its_impl_only() {
    assert_eq!(
        initialiser(SOURCE, "Options::timeout").as_deref(),
        Ok("Duration::from_secs(5)")
    );
    assert!(initialiser(SOURCE, "Options::retries").is_err());
    assert!(initialiser(SOURCE, "Other::timeout").is_err());
}

#[test]
fn a_row_whose_value_differs_from_the_code_fails_with_the_code_s_value() {
    let table = "intro\n## Tunables\n\n| tunable | value | where |\n|---|---|---|\n\
        | JSON body | `1 << 21` | `crates/netcfg-api/src/dispatch.rs` `JSON_BODY_LIMIT` |\n\
        | gone | `1` | `crates/netcfg-api/src/dispatch.rs` `NO_SUCH_LIMIT` |\n\n## Next\n";
    let rows = tunables(table).expect("the table parses");
    assert_eq!(rows.len(), 2);
    assert_eq!(rows[0].line, 6);
    let wrong = check(&rows[0]).expect("1 << 21 is not the code's value");
    assert!(wrong.contains("write `1 << 20`"), "{wrong}");
    let gone = check(&rows[1]).expect("the constant does not exist");
    assert!(gone.contains("fix the name"), "{gone}");
}

#[test]
fn a_malformed_row_says_how_to_write_it() {
    let table = "## Tunables\n| tunable | value | where |\n|---|---|---|\n| x | 5 | `a.rs` `X` |\n";
    let problems = tunables(table).unwrap_err();
    assert!(problems[0].contains("one code span"), "{problems:?}");
    assert!(tunables("# Nothing here\n").is_err());
}
