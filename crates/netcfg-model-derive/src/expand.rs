//! The expansion of `#[request_body]`, on `proc_macro2` tokens so that the
//! tests below can run it.

use proc_macro2::{TokenStream, TokenTree};
use quote::{ToTokens, format_ident, quote};
use syn::{
    Attribute, Data, DeriveInput, Error, Field, Fields, GenericArgument, Ident, LitStr, Path,
    PathArguments, Token, Type, meta::ParseNestedMeta, parse::Parser, parse_quote,
    parse_quote_spanned, punctuated::Punctuated,
};

/// The attribute's own options: `#[request_body(at_least_one, check = f)]`.
#[derive(Default)]
struct Options {
    at_least_one: bool,
    check: Option<Check>,
}

/// The rule that joins several fields.
enum Check {
    /// `check = f`: `f(&body, path, problems)`, once every required field
    /// was read.
    Body(Path),
    /// `check = f(a, b)`: `f(&a, &b, path, problems)` with what was read of
    /// fields `a` and `b` (each an `Option`), whatever else failed.
    Fields(Path, Vec<Ident>),
}

/// What `Option` around a field's type means for reading it.
#[derive(Clone, Copy, PartialEq)]
enum Presence {
    /// `T`: absent or `null` is a problem.
    Required,
    /// `Option<T>`: absent is `None`; `null` is a problem.
    Optional,
    /// `Option<Option<T>>`: absent is `None`, `null` is `Some(None)`.
    Clearable,
}

/// One field, as the reader needs it.
struct BodyField {
    ident: Ident,
    json_name: LitStr,
    presence: Presence,
    ty: Type,
    /// `#[from_json(with = f)]`: reads the field's value instead of `leaf`.
    with: Option<Path>,
}

/// The struct as given, with the attributes its fields' types imply, and
/// its `FromJson` and `Deserialize`.
pub(crate) fn request_body(options: TokenStream, item: TokenStream) -> syn::Result<TokenStream> {
    let options = parse_options(options)?;
    let mut input: DeriveInput = syn::parse2(item)?;
    if !input.generics.params.is_empty() {
        return Err(Error::new_spanned(
            &input.generics,
            "a request body has no generic parameters",
        ));
    }
    let not_named =
        Error::new_spanned(&input.ident, "a request body is a struct with named fields");
    let Data::Struct(data) = &mut input.data else {
        return Err(not_named);
    };
    let Fields::Named(named) = &mut data.fields else {
        return Err(not_named);
    };
    let fields = named
        .named
        .iter_mut()
        .map(body_field)
        .collect::<syn::Result<Vec<_>>>()?;
    input
        .attrs
        .push(parse_quote!(#[serde(deny_unknown_fields)]));
    if options.at_least_one {
        input
            .attrs
            .push(parse_quote!(#[schemars(extend("minProperties" = 1))]));
    }
    if let Some(Check::Fields(_, names)) = &options.check
        && let Some(unknown) = names
            .iter()
            .find(|name| fields.iter().all(|field| field.ident != **name))
    {
        return Err(Error::new_spanned(
            unknown,
            "the check names a field the body does not have",
        ));
    }
    let reader = from_json(&input.ident, &options, &fields);
    Ok(quote! {
        #input
        #reader
    })
}

fn parse_options(tokens: TokenStream) -> syn::Result<Options> {
    let mut options = Options::default();
    let parser = syn::meta::parser(|meta| {
        if meta.path.is_ident("at_least_one") {
            options.at_least_one = true;
            Ok(())
        } else if meta.path.is_ident("check") {
            let input = meta.value()?;
            let function = input.parse()?;
            options.check = Some(if input.peek(syn::token::Paren) {
                let names;
                syn::parenthesized!(names in input);
                let names = Punctuated::<Ident, Token![,]>::parse_terminated(&names)?;
                Check::Fields(function, names.into_iter().collect())
            } else {
                Check::Body(function)
            });
            Ok(())
        } else {
            Err(meta.error(
                "the options are `at_least_one` and `check = function` or `check = function(field, ...)`",
            ))
        }
    });
    parser.parse2(tokens)?;
    Ok(options)
}

/// Reads one field's declaration, takes its `#[from_json]` away and, for an
/// `Option`, adds the attributes of a field that may be left out.
fn body_field(field: &mut Field) -> syn::Result<BodyField> {
    let ident = field.ident.clone().ok_or_else(|| {
        Error::new_spanned(&*field, "a request body is a struct with named fields")
    })?;
    let mut with = None;
    let mut kept = Vec::new();
    for attribute in field.attrs.drain(..) {
        if attribute.path().is_ident("from_json") {
            attribute.parse_nested_meta(|meta| field_option(meta, &mut with))?;
        } else {
            kept.push(attribute);
        }
    }
    field.attrs = kept;
    let json_name = match key_value(&field.attrs, "serde", "rename")? {
        Some(name) => name,
        None => LitStr::new(&ident.to_string(), ident.span()),
    };
    let inner = option_inner(&field.ty);
    let presence = match inner {
        None => Presence::Required,
        Some(inner) if option_inner(inner).is_some() => Presence::Clearable,
        Some(_) => Presence::Optional,
    };
    if let Some(inner) = inner {
        // What the schema documents is the value a client may send: `T`
        // itself (or `Option<T>`, null, where null clears), not serde's
        // nullable `Option`.
        let documented = LitStr::new(&inner.to_token_stream().to_string(), ident.span());
        let own_schema = has_key(&field.attrs, "schemars", "with")
            || has_key(&field.attrs, "schemars", "schema_with");
        // Spanned on the field, so that a clash (the field already says
        // `default`) points at it.
        let span = ident.span();
        field.attrs.push(parse_quote_spanned!(span=>
            #[serde(default, skip_serializing_if = "Option::is_none")]
        ));
        if !own_schema {
            field
                .attrs
                .push(parse_quote_spanned!(span=> #[schemars(with = #documented)]));
        }
    }
    Ok(BodyField {
        ident,
        json_name,
        presence,
        ty: field.ty.clone(),
        with,
    })
}

fn field_option(meta: ParseNestedMeta<'_>, with: &mut Option<Path>) -> syn::Result<()> {
    if meta.path.is_ident("with") {
        *with = Some(meta.value()?.parse()?);
        Ok(())
    } else {
        Err(meta.error("the field option is `with = function`"))
    }
}

/// `T` when `ty` is written `Option<T>`.
fn option_inner(ty: &Type) -> Option<&Type> {
    let Type::Path(path) = ty else { return None };
    let last = path.path.segments.last()?;
    let PathArguments::AngleBracketed(arguments) = &last.arguments else {
        return None;
    };
    match (last.ident == "Option", arguments.args.first()) {
        (true, Some(GenericArgument::Type(inner))) if arguments.args.len() == 1 => Some(inner),
        _ => None,
    }
}

/// The tokens at the top level of every `#[name(...)]` attribute.
fn top_level(attrs: &[Attribute], name: &str) -> Vec<Vec<TokenTree>> {
    attrs
        .iter()
        .filter(|attribute| attribute.path().is_ident(name))
        .filter_map(|attribute| attribute.meta.require_list().ok())
        .map(|list| list.tokens.clone().into_iter().collect())
        .collect()
}

/// The positions of `key` as a key (at the start or after a comma) in
/// `tokens`.
fn key_positions<'a>(tokens: &'a [TokenTree], key: &'a str) -> impl Iterator<Item = usize> + 'a {
    (0..tokens.len()).filter(move |&at| {
        let is_key = matches!(&tokens[at], TokenTree::Ident(ident) if ident == key);
        let after_comma =
            at == 0 || matches!(&tokens[at - 1], TokenTree::Punct(punct) if punct.as_char() == ',');
        is_key && after_comma
    })
}

/// True when an `#[name(...)]` attribute holds `key`.
fn has_key(attrs: &[Attribute], name: &str, key: &str) -> bool {
    top_level(attrs, name)
        .iter()
        .any(|tokens| key_positions(tokens, key).next().is_some())
}

/// The string of `key = "..."` in an `#[name(...)]` attribute.
fn key_value(attrs: &[Attribute], name: &str, key: &str) -> syn::Result<Option<LitStr>> {
    for tokens in top_level(attrs, name) {
        if let Some(at) = key_positions(&tokens, key).next() {
            let value = match (tokens.get(at + 1), tokens.get(at + 2)) {
                (Some(TokenTree::Punct(equals)), Some(value)) if equals.as_char() == '=' => {
                    syn::parse2::<LitStr>(value.to_token_stream()).ok()
                }
                _ => None,
            };
            return value.map(Some).ok_or_else(|| {
                Error::new_spanned(
                    &tokens[at],
                    format!("a request body reads one JSON name: write `{key} = \"name\"`"),
                )
            });
        }
    }
    Ok(None)
}

/// `FromJson` reading every field in order, then `Deserialize` through it.
fn from_json(name: &Ident, options: &Options, fields: &[BodyField]) -> TokenStream {
    let local = |field: &BodyField| format_ident!("field_{}", field.ident);
    let reads = fields.iter().map(|field| {
        let (local, json_name, ty) = (local(field), &field.json_name, &field.ty);
        let read = match &field.with {
            Some(with) => with.to_token_stream(),
            None => quote!(crate::json::leaf),
        };
        let (method, binding) = match field.presence {
            Presence::Required => (quote!(required_with), quote!(::core::option::Option<#ty>)),
            Presence::Optional => (quote!(optional_with), quote!(#ty)),
            Presence::Clearable => (quote!(clearable_with), quote!(#ty)),
        };
        quote!(let #local: #binding = fields.#method(#json_name, problems, #read);)
    });
    let values = fields.iter().map(|field| {
        let (ident, local) = (&field.ident, local(field));
        if field.presence == Presence::Required {
            quote!(#ident: #local?)
        } else {
            quote!(#ident: #local)
        }
    });
    let at_least_one = options.at_least_one;
    // The check's problems make the body unclean like a field's do.
    let (fields_check, body_check) = match &options.check {
        Some(Check::Fields(check, names)) => {
            let locals = names.iter().map(|name| format_ident!("field_{}", name));
            let call = quote!(#check(#(&#locals,)* path, problems));
            (
                quote!(let clean = crate::json::check_clean(clean, problems, |problems| #call);),
                quote!(),
            )
        }
        Some(Check::Body(check)) => {
            let call = quote!(#check(&body, path, problems));
            (
                quote!(),
                quote!(let clean = crate::json::check_clean(clean, problems, |problems| #call);),
            )
        }
        None => (quote!(), quote!()),
    };
    quote! {
        impl crate::json::FromJson for #name {
            fn from_json_at(
                value: &::serde_json::Value,
                path: &str,
                problems: &mut crate::validation::Problems,
            ) -> ::core::option::Option<Self> {
                let mut fields = crate::json::Fields::open(value, path, problems)?;
                #(#reads)*
                let clean = fields.finish_body(#at_least_one, problems);
                #fields_check
                let body = Self { #(#values),* };
                #body_check
                clean.then_some(body)
            }
        }
        crate::json::deserialize_via_from_json!(#name);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The expansion as text (tokens spaced as `TokenStream` prints them),
    /// or `error: ` and the message.
    fn expand(options: &str, item: &str) -> String {
        let parse = |text: &str| text.parse::<TokenStream>().expect("test input lexes");
        request_body(parse(options), parse(item))
            .map(|tokens| tokens.to_string())
            .unwrap_or_else(|error| format!("error: {error}"))
    }

    /// Asserts that `out` holds each of `parts` (and none of `absent`).
    fn assert_has(out: &str, parts: &[&str], absent: &[&str]) {
        for part in parts {
            assert!(out.contains(part), "`{part}` not in:\n{out}");
        }
        for part in absent {
            assert!(!out.contains(part), "`{part}` in:\n{out}");
        }
    }

    #[test]
    fn an_option_field_is_optional_written_only_when_given_and_documented_as_its_value() {
        let out = expand("", "struct Body { a: u8, b: Option<Vec<u8>> }");
        assert_has(
            &out,
            &[
                "# [serde (deny_unknown_fields)]",
                "# [serde (default , skip_serializing_if = \"Option::is_none\")] \
                 # [schemars (with = \"Vec < u8 >\")] b",
                "let field_a : :: core :: option :: Option < u8 > = \
                 fields . required_with (\"a\" , problems , crate :: json :: leaf)",
                "let field_b : Option < Vec < u8 > > = fields . optional_with (\"b\"",
                "a : field_a ? , b : field_b",
                "finish_body (false , problems)",
                "clean . then_some (body)",
                "crate :: json :: deserialize_via_from_json ! (Body)",
            ],
            &["minProperties", "check_clean"],
        );
    }

    #[test]
    fn a_double_option_clears_and_an_own_schema_is_kept() {
        let item = r#"struct Body {
            #[schemars(schema_with = "own")] a: Option<Option<u8>>,
            #[schemars(length(max = 4))] b: Option<String>,
        }"#;
        let out = expand("at_least_one, check = rules::check", item);
        assert_has(
            &out,
            &[
                "fields . clearable_with (\"a\"",
                "# [schemars (length (max = 4))] \
                 # [serde (default , skip_serializing_if = \"Option::is_none\")] \
                 # [schemars (with = \"String\")] b",
                "# [schemars (extend (\"minProperties\" = 1))]",
                "finish_body (true , problems)",
                "let body = Self { a : field_a , b : field_b } ; \
                 let clean = crate :: json :: check_clean (clean , problems , \
                 | problems | rules :: check (& body , path , problems)) ;",
            ],
            &["with = \"Option < u8 >\""],
        );
    }

    #[test]
    fn a_check_of_named_fields_runs_before_the_body_is_built() {
        let out = expand(
            "check = order(b, a)",
            "struct Body { a: u8, b: Option<u8> }",
        );
        assert_has(
            &out,
            &[
                "let clean = crate :: json :: check_clean (clean , problems , \
               | problems | order (& field_b , & field_a , path , problems)) ; \
               let body = Self",
            ],
            &[],
        );
    }

    #[test]
    fn the_json_name_is_serdes_rename_and_a_reader_replaces_leaf() {
        let item = r#"struct Body {
            #[serde(rename = "type")] kind: u8,
            #[from_json(with = read_list)] list: Vec<u8>,
        }"#;
        assert_has(
            &expand("", item),
            &[
                "required_with (\"type\" , problems , crate :: json :: leaf)",
                "required_with (\"list\" , problems , read_list)",
                "# [serde (rename = \"type\")] kind",
            ],
            &["from_json (with"],
        );
    }

    #[test]
    fn what_is_not_a_plain_body_is_refused_with_a_reason() {
        let cases = [
            ("", "struct Body(u8);", "named fields"),
            ("", "enum Body { A }", "named fields"),
            ("", "struct Body<T> { a: T }", "generic"),
            ("every", "struct Body { a: u8 }", "the options are"),
            (
                "check = order(c)",
                "struct Body { a: u8 }",
                "a field the body does not have",
            ),
            (
                "",
                "struct Body { #[from_json(skip)] a: u8 }",
                "with = function",
            ),
            (
                "",
                r#"struct Body { #[serde(rename(serialize = "b"))] a: u8 }"#,
                "one JSON name",
            ),
        ];
        for (options, item, reason) in cases {
            let out = expand(options, item);
            assert!(out.starts_with("error: ") && out.contains(reason), "{out}");
        }
    }
}
