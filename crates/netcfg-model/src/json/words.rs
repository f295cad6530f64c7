//! serde's messages in a user's words.
//!
//! A leaf value that does not read gives serde's message, which speaks
//! Rust: `invalid type: string "5000", expected i32`. A site engineer wants
//! to hear what the field takes, in the field's unit: `expected a whole
//! number of millimetres, found the text "5000" (write numbers without
//! quotes)`. Messages of the project's own types (a serial number, a name)
//! already speak plainly and pass through unchanged.

/// `message` (serde's, for the value of field `field`) in a user's words.
pub(crate) fn in_words(message: &str, field: &str) -> String {
    if let Some(rest) = message.strip_prefix("unknown variant `")
        && let Some((given, expected)) = rest.split_once("`, expected ")
    {
        return format!(
            "expected {}; found \"{given}\"",
            choices(expected).unwrap_or_else(|| expected.to_owned())
        );
    }
    let parts = message
        .strip_prefix("invalid type: ")
        .or_else(|| message.strip_prefix("invalid value: "))
        .and_then(|rest| rest.rsplit_once(", expected "));
    let Some((found, expected)) = parts else {
        return message.to_owned();
    };
    let wanted = expected_in_words(expected, field);
    let found_words = found_in_words(found);
    let hint = if found.starts_with("string \"") && looks_numeric(found) {
        " (write numbers without quotes)"
    } else {
        ""
    };
    format!("expected {wanted}, found {found_words}{hint}")
}

/// "one of copy, delete" from serde's "one of `copy`, `delete`" (or
/// "`a` or `b`", or "`a`").
fn choices(expected: &str) -> Option<String> {
    // The names stand between backticks; what is between them is ", " or
    // " or ".
    let names: Vec<&str> = expected.split('`').skip(1).step_by(2).collect();
    match names.as_slice() {
        [] => None,
        [only] => Some(format!("\"{only}\"")),
        [first, second] => Some(format!("{first} or {second}")),
        many => Some(format!("one of {}", many.join(", "))),
    }
}

/// What serde's `expected` names, in words, with the unit the field's name
/// gives.
fn expected_in_words(expected: &str, field: &str) -> String {
    let unit = unit_of(field).map(|unit| format!(" of {unit}"));
    let whole = |range: &str| {
        format!(
            "a whole number{}{range}",
            unit.as_deref().unwrap_or_default()
        )
    };
    match expected {
        "u8" => whole(" from 0 to 255"),
        "u16" => whole(" from 0 to 65535"),
        "i16" => whole(" from -32768 to 32767"),
        "u32" | "u64" | "usize" => whole(" (0 or more)"),
        "i32" | "i64" | "isize" => whole(""),
        "f32" | "f64" => format!("a number{}", unit.as_deref().unwrap_or_default()),
        "a boolean" => "true or false".to_owned(),
        "a string" => "text in quotes".to_owned(),
        "a sequence" => "an array".to_owned(),
        "a map" => "an object".to_owned(),
        other => other.to_owned(),
    }
}

/// What serde's `found` part names, in words.
fn found_in_words(found: &str) -> String {
    let quoted = |prefix: &str| {
        found
            .strip_prefix(prefix)
            .and_then(|rest| rest.strip_suffix('`'))
            .map(str::to_owned)
    };
    if let Some(text) = found.strip_prefix("string ") {
        return format!("the text {text}");
    }
    if let Some(number) = quoted("integer `").or_else(|| quoted("floating point `")) {
        return number;
    }
    if let Some(value) = quoted("boolean `") {
        return value;
    }
    match found {
        "sequence" => "an array".to_owned(),
        "map" => "an object".to_owned(),
        "null" | "unit value" => "null".to_owned(),
        other => other.to_owned(),
    }
}

/// True when serde's `string "..."` holds a number.
fn looks_numeric(found: &str) -> bool {
    found
        .strip_prefix("string \"")
        .and_then(|rest| rest.strip_suffix('"'))
        .is_some_and(|text| text.trim().parse::<f64>().is_ok())
}

/// The unit a field's name gives: `x`, `y`, `z` (and a bounding box's
/// `min_x` to `max_z`) and `*_mm` are millimetres,
/// `*_ms` milliseconds, `*_s` seconds, `*_percent` percent.
fn unit_of(field: &str) -> Option<&'static str> {
    let name = field.rsplit(['.', '[']).next().unwrap_or(field);
    match name {
        "x" | "y" | "z" | "min_x" | "max_x" | "min_y" | "max_y" | "min_z" | "max_z" => {
            Some("millimetres")
        }
        _ if name.ends_with("_mm") => Some("millimetres"),
        _ if name.ends_with("_mm_s") => Some("millimetres a second"),
        _ if name.ends_with("_ms") => Some("milliseconds"),
        _ if name.ends_with("_s") || name == "timeout" => Some("seconds"),
        _ if name.ends_with("_percent") => Some("percent"),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::in_words;

    #[test]
    fn numbers_in_quotes_name_the_field_unit_and_the_fix() {
        assert_eq!(
            in_words(
                r#"invalid type: string "5000", expected i32"#,
                "interfaces[0].x"
            ),
            r#"expected a whole number of millimetres, found the text "5000" (write numbers without quotes)"#
        );
    }

    #[test]
    fn fractions_and_ranges_say_what_the_field_takes() {
        assert_eq!(
            in_words("invalid type: floating point `5000.5`, expected i32", "y"),
            "expected a whole number of millimetres, found 5000.5"
        );
        assert_eq!(
            in_words(
                "invalid value: integer `70000`, expected u16",
                "destination_port"
            ),
            "expected a whole number from 0 to 65535, found 70000"
        );
        assert_eq!(
            in_words("invalid value: integer `-1`, expected u32", "for_s"),
            "expected a whole number of seconds (0 or more), found -1"
        );
    }

    #[test]
    fn unknown_values_list_the_choices_plainly() {
        assert_eq!(
            in_words(
                "unknown variant `explode`, expected one of `start`, `stop`, `restart`, `reload`",
                "action"
            ),
            "expected one of start, stop, restart, reload; found \"explode\""
        );
        assert_eq!(
            in_words(
                "unknown variant `x`, expected `twr` or `blacklist`",
                "_type"
            ),
            "expected twr or blacklist; found \"x\""
        );
        assert_eq!(
            in_words(
                "unknown variant `very dim`, expected one of `Off`, `Very Dim`, `Dim`, `Bright`",
                "led_brightness"
            ),
            "expected one of Off, Very Dim, Dim, Bright; found \"very dim\""
        );
    }

    #[test]
    fn other_types_and_plain_messages() {
        assert_eq!(
            in_words(
                r#"invalid type: string "no", expected a boolean"#,
                "disabled"
            ),
            r#"expected true or false, found the text "no""#
        );
        assert_eq!(
            in_words(
                "invalid type: integer `17`, expected a string",
                "serial_number"
            ),
            "expected text in quotes, found 17"
        );
        let plain = "`zz` is not a serial number: expected XX:XX:XXXX or 8 hexadecimal digits";
        assert_eq!(in_words(plain, "serial_number"), plain);
    }
}
