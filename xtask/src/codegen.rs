//! `cargo xtask codegen`: rewrites the generated documents from the code:
//! the OpenAPI documents of both tables (`docs/openapi/<version>.json`), the
//! configuration reference table in `docs/configuration.md` (issue 7), and
//! from the 5.1 document the web front end's JSDoc types
//! (`crates/netcfg-ui/ui/lib/types.js` and `types_events.js`, jsdoc.rs; issue 45).
//!
//! Each generated file has an ordinary test that fails when the committed
//! file is stale and rewrites it when `UPDATE_EXPECT` is set (the way
//! rust-analyzer keeps its generated files). This task runs those tests
//! with `UPDATE_EXPECT=1`, so the code that writes a file and the code that
//! checks it are one; `cargo xtask codegen --check` runs them as CI does.
//! The front end's types come last, from the document just written (or
//! just checked): their test is xtask's own, and this task calls the same
//! function directly rather than through cargo.

use anyhow::Result;

/// The tests that own a generated file: cargo arguments, and the file.
const GENERATORS: &[(&[&str], &str)] = &[
    (
        &[
            "test",
            "-p",
            "netcfg-api",
            "--test",
            "it",
            "generated_docs::",
        ],
        "docs/openapi/*.json",
    ),
    (
        &[
            "test",
            "-p",
            "netcfg-http",
            "--bin",
            "netcfg-http",
            "--",
            "the_configuration_reference_is_current",
        ],
        "docs/configuration.md (the key table)",
    ),
];

pub(crate) fn codegen(check_only: bool) -> Result<()> {
    let update = !check_only;
    let environment: &[(&str, &str)] = if update {
        &[("UPDATE_EXPECT", "1")]
    } else {
        &[]
    };
    for (args, file) in GENERATORS {
        crate::cargo(args, environment)?;
        let verb = if update { "written" } else { "current" };
        eprintln!("codegen: {file} {verb}");
    }
    crate::jsdoc::write_or_check(&crate::workspace_root(), check_only)?;
    let verb = if update { "written" } else { "current" };
    eprintln!(
        "codegen: {}, {} and {} {verb}",
        crate::jsdoc::TARGET,
        crate::jsdoc::EVENTS_TARGET,
        crate::access_table::TARGET
    );
    Ok(())
}
