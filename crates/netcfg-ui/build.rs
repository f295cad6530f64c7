//! Embeds the web front end (`ui/`) in the crate: writes a table of every
//! file under `ui/` with its content type, each file's bytes taken by
//! `include_bytes!`, so the binary serves the front end with nothing beside
//! it and no JavaScript toolchain is ever run.

use std::{
    env, fs,
    path::{Path, PathBuf},
};

#[path = "src/content_types.rs"]
mod content_types;

fn main() {
    let manifest = PathBuf::from(env::var("CARGO_MANIFEST_DIR").expect("set by cargo"));
    let root = manifest.join("ui");
    // A directory is scanned as a whole: any file added, changed or removed
    // under it runs this script again.
    println!("cargo:rerun-if-changed=ui");
    let mut files = Vec::new();
    collect(&root, &mut files);
    files.sort();
    let mut table = String::from("&[\n");
    for file in &files {
        let relative = file
            .strip_prefix(&root)
            .expect("under ui/")
            .to_str()
            .expect("UTF-8 file names under ui/")
            .replace('\\', "/");
        let content_type = content_types::content_type_of(&relative).unwrap_or_else(|| {
            panic!("ui/{relative}: no content type for this kind of file; add one in src/content_types.rs")
        });
        table.push_str(&format!(
            "    Asset {{ path: {relative:?}, content_type: {content_type:?}, bytes: include_bytes!({:?}) }},\n",
            file.display().to_string()
        ));
    }
    table.push(']');
    let out = PathBuf::from(env::var("OUT_DIR").expect("set by cargo")).join("ui_assets.rs");
    fs::write(out, table).expect("writing the asset table");
}

fn collect(directory: &Path, files: &mut Vec<PathBuf>) {
    for entry in fs::read_dir(directory).expect("reading ui/") {
        let path = entry.expect("reading ui/").path();
        let hidden = path
            .file_name()
            .and_then(|name| name.to_str())
            .is_some_and(|name| name.starts_with('.'));
        if hidden {
            continue;
        } else if path.is_dir() {
            collect(&path, files);
        } else {
            files.push(path);
        }
    }
}
