//! Stakes and credits as a person writes and reads them: ETH in wei or `0.01eth`, a
//! token in base units or in its symbol with its `decimals()` (`1.5TST`).

use alloy_primitives::{Address, U256};
use serde::Serialize;

/// What an amount is counted in.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Unit {
    /// The token (zero: ETH).
    pub token: Address,
    /// The symbol (`ETH`; a token's `symbol()`, if it has one).
    pub symbol: Option<String>,
    /// Decimals of a whole unit (18 for ETH; a token's `decimals()`, if it has one).
    pub decimals: Option<u8>,
}

/// An amount that cannot be read in its unit.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("amount {text:?}: {why}")]
pub struct AmountError {
    /// The amount as given.
    pub text: String,
    /// What is wrong, and what is accepted.
    pub why: String,
}

impl Unit {
    /// ETH: 18 decimals.
    pub fn eth() -> Unit {
        Unit {
            token: Address::ZERO,
            symbol: Some("ETH".into()),
            decimals: Some(18),
        }
    }

    /// Whether this is ETH.
    pub fn is_eth(&self) -> bool {
        self.token == Address::ZERO
    }

    /// What the unit is called: `ETH`, the token's symbol, else `units of 0x…`.
    fn name(&self) -> String {
        match &self.symbol {
            Some(symbol) => symbol.clone(),
            None => format!("units of {}", self.token),
        }
    }

    /// `raw` in whole units with the unit's name, trailing zeros dropped (`1.5 TST`,
    /// `0.01 ETH`); a token without `decimals()` in base units (`250 units of 0x…`).
    pub fn format(&self, raw: U256) -> String {
        let Some(decimals) = self.decimals else {
            return format!("{raw} {}", self.name());
        };
        let name = match &self.symbol {
            Some(symbol) => symbol.clone(),
            None => format!("tokens of {}", self.token),
        };
        let scale = U256::from(10u64).pow(U256::from(decimals));
        let whole = raw / scale;
        let fraction = format!("{:0width$}", raw % scale, width = usize::from(decimals));
        let fraction = fraction.trim_end_matches('0');
        if fraction.is_empty() {
            format!("{whole} {name}")
        } else {
            format!("{whole}.{fraction} {name}")
        }
    }

    /// Reads `text`: an integer is in the smallest unit (wei, base units); a decimal
    /// needs the unit's symbol after it (`0.01eth`, `1.5 TST`, case-insensitive) and the
    /// unit's decimals. `wei` after an integer is accepted for ETH.
    pub fn parse(&self, text: &str) -> Result<U256, AmountError> {
        let fail = |why: String| AmountError {
            text: text.to_string(),
            why,
        };
        let trimmed = text.trim();
        let split = trimmed
            .find(|c: char| !(c.is_ascii_digit() || c == '.' || c == '_'))
            .unwrap_or(trimmed.len());
        let (number, suffix) = trimmed.split_at(split);
        let number = number.replace('_', "");
        let suffix = suffix.trim();
        let accepted = match (&self.symbol, self.decimals) {
            (Some(symbol), Some(_)) if self.is_eth() => {
                format!("give wei (10000000000000000) or {symbol} with a unit (0.01{symbol})")
            }
            (Some(symbol), Some(_)) => {
                format!("give base units (an integer) or a decimal with the symbol (1.5{symbol})")
            }
            _ => format!(
                "token {} has no symbol() and decimals(): give base units (an integer)",
                self.token
            ),
        };
        if number.is_empty() {
            return Err(fail(accepted));
        }
        let integer =
            |digits: &str| U256::from_str_radix(digits, 10).map_err(|_| fail("too large".into()));
        if suffix.is_empty() || (self.is_eth() && suffix.eq_ignore_ascii_case("wei")) {
            if number.contains('.') {
                return Err(fail(format!("a decimal needs its unit: {accepted}")));
            }
            return integer(&number);
        }
        let (Some(symbol), Some(decimals)) = (&self.symbol, self.decimals) else {
            return Err(fail(accepted));
        };
        if !suffix.eq_ignore_ascii_case(symbol) {
            return Err(fail(format!("unknown unit {suffix:?}: {accepted}")));
        }
        let (whole, fraction) = number.split_once('.').unwrap_or((&number, ""));
        if fraction.contains('.') || (whole.is_empty() && fraction.is_empty()) {
            return Err(fail(accepted));
        }
        if fraction.len() > usize::from(decimals) {
            return Err(fail(format!(
                "{symbol} has {decimals} decimals, the amount has {}",
                fraction.len()
            )));
        }
        let padded = format!("{fraction:0<width$}", width = usize::from(decimals));
        let whole = if whole.is_empty() { "0" } else { whole };
        let scale = U256::from(10u64).pow(U256::from(decimals));
        integer(whole)?
            .checked_mul(scale)
            .and_then(|w| w.checked_add(integer(&padded).ok()?))
            .ok_or_else(|| fail("too large".into()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tst() -> Unit {
        Unit {
            token: Address::repeat_byte(7),
            symbol: Some("TST".into()),
            decimals: Some(6),
        }
    }

    #[test]
    fn eth_is_read_in_wei_or_with_its_unit_and_shown_with_it() {
        let eth = Unit::eth();
        let cent = U256::from(10_000_000_000_000_000u64);
        for text in [
            "0.01eth",
            "0.01 ETH",
            ".01Eth",
            "10000000000000000",
            "10_000_000_000_000_000 wei",
        ] {
            assert_eq!(eth.parse(text).unwrap(), cent, "{text}");
        }
        assert_eq!(eth.format(cent), "0.01 ETH");
        assert_eq!(eth.format(U256::ZERO), "0 ETH");
        assert_eq!(
            eth.format(U256::from(1_500_000_000_000_000_000u128)),
            "1.5 ETH"
        );
        assert!(
            eth.parse("0.01")
                .unwrap_err()
                .why
                .starts_with("a decimal needs its unit")
        );
        assert!(
            eth.parse("1.0000000000000000001eth")
                .unwrap_err()
                .why
                .contains("18 decimals")
        );
        assert!(
            eth.parse("1tst")
                .unwrap_err()
                .why
                .starts_with("unknown unit \"tst\"")
        );
        assert!(eth.parse("eth").is_err());
        assert!(eth.parse("1.2.3eth").is_err());
        assert!(eth.parse(&format!("{}0", U256::MAX)).is_err());
    }

    #[test]
    fn a_token_is_read_in_base_units_or_its_symbol_and_decimals() {
        let tst = tst();
        assert_eq!(tst.parse("1.5tst").unwrap(), U256::from(1_500_000));
        assert_eq!(tst.parse("1500000").unwrap(), U256::from(1_500_000));
        assert_eq!(tst.format(U256::from(1_500_000)), "1.5 TST");
        assert_eq!(tst.format(U256::from(7)), "0.000007 TST");
        assert!(tst.parse("1.5eth").is_err());
        assert!(tst.parse("1wei").is_err());
        let bare = Unit {
            symbol: None,
            decimals: None,
            ..tst
        };
        assert_eq!(bare.parse("250").unwrap(), U256::from(250));
        assert_eq!(
            bare.format(U256::from(250)),
            format!("250 units of {}", Address::repeat_byte(7))
        );
        assert!(
            bare.parse("2.5")
                .unwrap_err()
                .why
                .contains("has no symbol() and decimals()")
        );
    }
}
