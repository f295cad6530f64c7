//! JSON schemas written by hand, for the types whose wire form is text or a
//! checked number that serde's derive cannot describe.

/// Implements `schemars::JsonSchema` for `$name`: a schema named after the
/// type, the JSON given, and nothing taken from the rest of the document.
macro_rules! fixed_schema {
    ($name:ident, $schema:tt) => {
        impl schemars::JsonSchema for $name {
            fn schema_name() -> std::borrow::Cow<'static, str> {
                stringify!($name).into()
            }

            fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
                schemars::json_schema!($schema)
            }
        }
    };
}
pub(crate) use fixed_schema;
