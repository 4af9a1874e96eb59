//! SQL written once for both backends: statements use SQLite's numbered placeholders
//! `?1..?N`, which Postgres spells `$1..$N`.

use std::borrow::Cow;

/// `sql` with every `?N` outside quotes, quoted identifiers and comments turned into
/// `$N` (Postgres's placeholders). A bare `?` has no Postgres spelling and stays as it
/// is: the server then refuses the statement, naming it.
pub fn to_postgres(sql: &str) -> Cow<'_, str> {
    if !sql.contains('?') {
        return Cow::Borrowed(sql);
    }
    let bytes = sql.as_bytes();
    let mut out = String::with_capacity(sql.len());
    let mut i = 0;
    while i < bytes.len() {
        let c = bytes[i];
        let skip_to = match c {
            b'\'' | b'"' => closing(bytes, i + 1, c),
            b'-' if bytes.get(i + 1) == Some(&b'-') => line_end(bytes, i + 2),
            b'/' if bytes.get(i + 1) == Some(&b'*') => comment_end(bytes, i + 2),
            b'?' if bytes.get(i + 1).is_some_and(u8::is_ascii_digit) => {
                out.push('$');
                i += 1;
                continue;
            }
            // Up to the next byte that may start something (all ASCII, so a char
            // boundary even in non-ASCII text).
            _ => bytes[i + 1..]
                .iter()
                .position(|b| b"'\"-/?".contains(b))
                .map_or(bytes.len(), |p| i + 1 + p),
        };
        out.push_str(&sql[i..skip_to]);
        i = skip_to;
    }
    Cow::Owned(out)
}

/// The index just past the quote `q` that closes a quoted run starting at `from` (a
/// doubled quote is an escaped one, and stays inside).
fn closing(bytes: &[u8], mut from: usize, q: u8) -> usize {
    while from < bytes.len() {
        if bytes[from] == q {
            if bytes.get(from + 1) == Some(&q) {
                from += 2;
                continue;
            }
            return from + 1;
        }
        from += 1;
    }
    bytes.len()
}

fn line_end(bytes: &[u8], from: usize) -> usize {
    bytes[from..]
        .iter()
        .position(|&b| b == b'\n')
        .map_or(bytes.len(), |p| from + p + 1)
}

fn comment_end(bytes: &[u8], from: usize) -> usize {
    bytes[from..]
        .windows(2)
        .position(|w| w == b"*/")
        .map_or(bytes.len(), |p| from + p + 2)
}

#[cfg(test)]
mod tests {
    use super::to_postgres;

    #[test]
    fn test_placeholders_become_dollars_outside_quotes() {
        assert_eq!(
            to_postgres("SELECT a FROM t WHERE b = ?1 AND c IN (?2, ?12)"),
            "SELECT a FROM t WHERE b = $1 AND c IN ($2, $12)"
        );
        assert_eq!(
            to_postgres("SELECT '?1', 'it''s ?2', \"col?3\" FROM t WHERE x = ?3"),
            "SELECT '?1', 'it''s ?2', \"col?3\" FROM t WHERE x = $3"
        );
        assert_eq!(
            to_postgres("SELECT 1 -- ?1 in a comment\n, ?1 /* ?2 */ , ?2"),
            "SELECT 1 -- ?1 in a comment\n, $1 /* ?2 */ , $2"
        );
        // Nothing to do: the same text, not a copy.
        assert!(matches!(
            to_postgres("SELECT 1"),
            std::borrow::Cow::Borrowed(_)
        ));
        assert_eq!(
            to_postgres("SELECT 'é?1', ?1 -- ü"),
            "SELECT 'é?1', $1 -- ü"
        );
        // A bare ? and an unterminated quote are left for the server to refuse.
        assert_eq!(to_postgres("SELECT ? , 'x ?1"), "SELECT ? , 'x ?1");
    }
}
