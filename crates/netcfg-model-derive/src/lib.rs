//! The `request_body` attribute of netcfg-model: a request body is declared
//! once, as a struct, and a new field is one line of it.
//!
//! Before this crate every body's fields were written three times: in the
//! struct, in a list that read them from JSON, and in the serde and
//! schemars attributes that say an `Option` field may be left out. The
//! attribute derives the last two from the struct:
//!
//! ```text
//! #[request_body(at_least_one, check = check_patch)]
//! #[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize, schemars::JsonSchema)]
//! pub struct RolePatchBody {
//!     /// New name.
//!     pub name: Option<ItemName>,
//!     /// New downlink window.
//!     pub window_duration: Option<NetworkTime>,
//!     #[from_json(with = read_interfaces)]
//!     pub interfaces: Vec<Interface>,
//!     #[serde(rename = "loop")]
//!     pub looping: Option<bool>,
//! }
//! ```
//!
//! What a field's type says:
//! - `T`: required; absent or `null` is a problem.
//! - `Option<T>`: optional; absent is `None`, `null` is a problem (leave
//!   the field out instead). Written back only when `Some`; its schema is
//!   `T`'s (not nullable) and not required.
//! - `Option<Option<T>>`: optional and clearable; `null` is `Some(None)`.
//!   Its schema is `Option<T>`'s.
//!
//! The JSON name is the field's, or serde's `rename = "..."` (one name for
//! reading, writing and the schema). `#[from_json(with = f)]` reads the
//! field's `T` with `f(&Value, &str, &mut Problems) -> Option<T>` instead of
//! `T`'s own `Deserialize`; the attribute removes that line from the struct.
//!
//! Options of the attribute itself:
//! - `at_least_one`: a body with none of its fields given is a problem (on
//!   the body, listing the fields); the schema says `minProperties: 1`.
//! - `check = f`: `f(&Self, path, &mut Problems)` adds the rules that join
//!   several fields; it runs once every required field was read.
//! - `check = f(a, b)`: `f(&a, &b, path, &mut Problems)` with what was read
//!   of fields `a` and `b` (each as an `Option`), even when another field
//!   failed: for a rule of optional fields, which a missing required field
//!   should not hide.
//!
//! A check's problems, like a field's, make the body fail to read.
//!
//! Every body also denies unknown fields (`deny_unknown_fields` for the
//! schema) and gets `serde::Deserialize` through its `FromJson`.
//!
//! **Invariant:** the generated code names netcfg-model's private reader
//! (`crate::json`), so the attribute serves netcfg-model's own structs
//! only; it runs at compile time and does no I/O.
//!
//! Place it before `#[derive(...)]`: the derives (serde's, schemars') must
//! see the attributes it adds.

use proc_macro::TokenStream;

mod expand;

/// Makes a struct with named fields a request body of netcfg-model: reads
/// it with `FromJson` (every problem on its field), and gives its `Option`
/// fields the serde and schemars attributes of a field that may be left
/// out. See the crate's documentation for the options.
#[proc_macro_attribute]
pub fn request_body(options: TokenStream, item: TokenStream) -> TokenStream {
    expand::request_body(options.into(), item.into())
        .unwrap_or_else(syn::Error::into_compile_error)
        .into()
}
