//! HCL's numbers as HashiCorp's implementation keeps them: binary floating point with a 512-bit
//! mantissa, rounded to nearest (ties to even) after every operation, and the two infinities.
//! `hcl-information-model.md` asks for at least 256 bits; matching the reference's 512 makes every
//! result, and the shortest decimal that prints it, the same as `hcldec`'s (`11 % 5.1` is
//! `0.8000…024`, not `0.8`: `5.1` has no exact binary form).
//!
//! Text is read by rounding the exact decimal once, and written as the shortest decimal that reads
//! back to the same number, digit for digit as Go's `big.Float.Text('f', -1)` does.

use num_bigint::BigUint;
use num_integer::Integer;
use num_traits::{ToPrimitive, Zero};
use std::{cmp::Ordering, fmt};

/// Bits of mantissa every number is rounded to.
const PRECISION: u64 = 512;

/// The largest binary exponent (of the leading bit) a finite number may have; past it a result
/// is an infinity, below its negation zero. About 39,000 decimal digits either way: enough for any
/// configuration, and small enough that printing a number never takes long.
const MAX_EXPONENT: i64 = 1 << 17;

/// A finite number: `(-1)^negative × mantissa × 2^exponent`, the mantissa odd (or zero, then with
/// exponent 0 and no sign), at most [`PRECISION`] bits.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Float {
    negative: bool,
    mantissa: BigUint,
    exponent: i64,
}

/// A number: finite, or an infinity.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Number {
    /// Negative infinity (less than every other number).
    NegInfinity,
    /// A finite number.
    Finite(Float),
    /// Positive infinity (greater than every other number).
    PosInfinity,
}

impl Float {
    fn zero() -> Float {
        Float { negative: false, mantissa: BigUint::zero(), exponent: 0 }
    }

    fn is_zero(&self) -> bool {
        self.mantissa.is_zero()
    }

    /// The binary exponent of the leading bit plus one (`x < 2^top`); meaningless for zero.
    fn top(&self) -> i64 {
        self.exponent + bits(&self.mantissa)
    }

    /// `±mantissa × 2^exponent` rounded to [`PRECISION`] bits; `sticky` says that the exact value is
    /// a little more than that (a division's remainder), which only matters past the kept bits.
    fn round(negative: bool, mantissa: BigUint, exponent: i64, sticky: bool) -> Number {
        if mantissa.is_zero() {
            return Number::Finite(Float::zero());
        }
        let (mut mantissa, mut exponent) = (mantissa, exponent);
        let length = bits(&mantissa);
        if length > PRECISION as i64 {
            let shift = (length - PRECISION as i64) as u64;
            let half = mantissa.bit(shift - 1);
            let below_half = sticky || mantissa.trailing_zeros().is_some_and(|zeros| zeros < shift - 1);
            mantissa >>= shift;
            exponent += shift as i64;
            if half && (below_half || mantissa.bit(0)) {
                mantissa += 1u32;
            }
        }
        if let Some(zeros) = mantissa.trailing_zeros() {
            mantissa >>= zeros;
            exponent += zeros as i64;
        }
        let top = exponent + bits(&mantissa);
        if top > MAX_EXPONENT {
            return if negative { Number::NegInfinity } else { Number::PosInfinity };
        }
        if top < -MAX_EXPONENT {
            return Number::Finite(Float::zero());
        }
        Number::Finite(Float { negative, mantissa, exponent })
    }

    /// The magnitudes compared.
    fn cmp_magnitude(&self, other: &Float) -> Ordering {
        match (self.is_zero(), other.is_zero()) {
            (true, true) => return Ordering::Equal,
            (true, false) => return Ordering::Less,
            (false, true) => return Ordering::Greater,
            _ => {}
        }
        self.top().cmp(&other.top()).then_with(|| {
            let low = self.exponent.min(other.exponent);
            let a = &self.mantissa << (self.exponent - low) as u64;
            let b = &other.mantissa << (other.exponent - low) as u64;
            a.cmp(&b)
        })
    }

    fn add(&self, other: &Float) -> Number {
        if self.is_zero() {
            return Number::Finite(other.clone());
        }
        if other.is_zero() {
            return Number::Finite(self.clone());
        }
        // An addend below a quarter of the other's last kept bit cannot change the rounded sum.
        let (big, small) = if self.cmp_magnitude(other) == Ordering::Less { (other, self) } else { (self, other) };
        if small.top() < big.top() - PRECISION as i64 - 2 {
            return Number::Finite(big.clone());
        }
        let low = big.exponent.min(small.exponent);
        let a = &big.mantissa << (big.exponent - low) as u64;
        let b = &small.mantissa << (small.exponent - low) as u64;
        if big.negative == small.negative {
            Float::round(big.negative, a + b, low, false)
        } else {
            // |big| >= |small|, so the difference keeps big's sign.
            Float::round(big.negative, a - b, low, false)
        }
    }

    fn mul(&self, other: &Float) -> Number {
        Float::round(
            self.negative != other.negative,
            &self.mantissa * &other.mantissa,
            self.exponent + other.exponent,
            false,
        )
    }

    /// The quotient; `other` is not zero.
    fn div(&self, other: &Float) -> Number {
        let shift = (PRECISION as i64 + 2 + bits(&other.mantissa) - bits(&self.mantissa)).max(0);
        let (quotient, remainder) = (&self.mantissa << shift as u64).div_rem(&other.mantissa);
        let exponent = self.exponent - other.exponent - shift;
        Float::round(self.negative != other.negative, quotient, exponent, !remainder.is_zero())
    }

    /// The integer part (rounding towards zero).
    fn trunc(&self) -> Float {
        if self.exponent >= 0 {
            return self.clone();
        }
        let mantissa = &self.mantissa >> (-self.exponent) as u64;
        match Float::round(self.negative, mantissa, 0, false) {
            Number::Finite(f) => f,
            _ => Float::zero(),
        }
    }

    /// The exact decimal expansion: digits without trailing zeros, and the position of the
    /// decimal point counted from the first digit (Go's `decimal`).
    fn exact_decimal(mantissa: &BigUint, exponent: i64) -> Decimal {
        if mantissa.is_zero() {
            return Decimal { digits: Vec::new(), point: 0 };
        }
        let (digits, fraction_digits) = if exponent >= 0 {
            ((mantissa << exponent as u64).to_str_radix(10), 0)
        } else {
            // m / 2^k = m × 5^k / 10^k.
            let k = (-exponent) as u32;
            ((mantissa * BigUint::from(5u32).pow(k)).to_str_radix(10), k as i64)
        };
        let mut digits = digits.into_bytes();
        let point = digits.len() as i64 - fraction_digits;
        while digits.last() == Some(&b'0') {
            digits.pop();
        }
        Decimal { digits, point }
    }

    /// The shortest decimal that rounds back to this number at [`PRECISION`] bits.
    fn shortest(&self) -> Decimal {
        let mut decimal = Float::exact_decimal(&self.mantissa, self.exponent);
        if decimal.digits.is_empty() {
            return decimal;
        }
        // The mantissa with PRECISION + 1 bits: its last bit is half a unit of the last place.
        let shift = PRECISION as i64 + 1 - bits(&self.mantissa);
        let (scaled, exponent) = if shift >= 0 {
            (&self.mantissa << shift as u64, self.exponent - shift)
        } else {
            (&self.mantissa >> (-shift) as u64, self.exponent - shift)
        };
        let lower = Float::exact_decimal(&(&scaled - 1u32), exponent);
        let upper = Float::exact_decimal(&(&scaled + 1u32), exponent);
        let inclusive = !scaled.bit(1);
        for (i, &digit) in decimal.digits.clone().iter().enumerate() {
            let l = lower.at(i);
            let u = upper.at(i);
            let down = l != digit || inclusive && i + 1 == lower.digits.len();
            let up = digit != u && (inclusive || digit + 1 < u || i + 1 < upper.digits.len());
            match (down, up) {
                (true, true) => {
                    decimal.round(i + 1);
                    break;
                }
                (true, false) => {
                    decimal.round_down(i + 1);
                    break;
                }
                (false, true) => {
                    decimal.round_up(i + 1);
                    break;
                }
                (false, false) => {}
            }
        }
        decimal
    }
}

impl PartialOrd for Float {
    fn partial_cmp(&self, other: &Float) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Float {
    fn cmp(&self, other: &Float) -> Ordering {
        match (self.negative, other.negative) {
            (false, true) => Ordering::Greater,
            (true, false) => Ordering::Less,
            (false, false) => self.cmp_magnitude(other),
            (true, true) => other.cmp_magnitude(self),
        }
    }
}

/// Decimal digits (ASCII) and the position of the decimal point from the first digit.
struct Decimal {
    digits: Vec<u8>,
    point: i64,
}

impl Decimal {
    fn at(&self, i: usize) -> u8 {
        self.digits.get(i).copied().unwrap_or(b'0')
    }

    fn round(&mut self, n: usize) {
        let Some(&digit) = self.digits.get(n) else { return };
        let up = if digit == b'5' && n + 1 == self.digits.len() {
            n > 0 && (self.digits[n - 1] - b'0') % 2 == 1
        } else {
            digit >= b'5'
        };
        if up { self.round_up(n) } else { self.round_down(n) }
    }

    fn round_down(&mut self, n: usize) {
        self.digits.truncate(n);
        while self.digits.last() == Some(&b'0') {
            self.digits.pop();
        }
    }

    fn round_up(&mut self, n: usize) {
        if n >= self.digits.len() {
            return;
        }
        self.digits.truncate(n);
        while let Some(&last) = self.digits.last() {
            if last < b'9' {
                if let Some(d) = self.digits.last_mut() {
                    *d += 1;
                }
                return;
            }
            self.digits.pop();
        }
        // All nines: 0.999 becomes 1.
        self.digits.push(b'1');
        self.point += 1;
    }
}

fn bits(n: &BigUint) -> i64 {
    n.bits() as i64
}

impl Number {
    /// The number written as a decimal literal (`1.5`, `-2e10`), rounded to 512 bits; `None` when it
    /// is not one, or its exponent is out of range.
    pub fn parse(text: &str) -> Option<Number> {
        let (negative, unsigned) = match text.strip_prefix('-') {
            Some(rest) => (true, rest),
            None => (false, text.strip_prefix('+').unwrap_or(text)),
        };
        let (significand, exponent) = match unsigned.find(['e', 'E']) {
            Some(at) => (&unsigned[..at], unsigned[at + 1..].parse::<i64>().ok()?),
            None => (unsigned, 0),
        };
        let (whole, fraction) = significand.split_once('.').unwrap_or((significand, ""));
        if whole.is_empty() || !whole.bytes().chain(fraction.bytes()).all(|b| b.is_ascii_digit()) {
            return None;
        }
        let digits: String = whole.chars().chain(fraction.chars()).collect();
        let integer = BigUint::parse_bytes(digits.as_bytes(), 10)?;
        let scale = exponent.checked_sub(fraction.len() as i64)?;
        // 10^40000 is far past MAX_EXPONENT; no need to build more.
        if integer.is_zero() {
            return Some(Number::Finite(Float::zero()));
        }
        let magnitude = digits.trim_start_matches('0').len() as i64 + scale;
        if magnitude > 40_000 {
            return Some(if negative { Number::NegInfinity } else { Number::PosInfinity });
        }
        if magnitude < -40_000 {
            return Some(Number::Finite(Float::zero()));
        }
        let power = BigUint::from(10u32).pow(scale.unsigned_abs() as u32);
        Some(if scale >= 0 {
            Float::round(negative, integer * power, 0, false)
        } else {
            let numerator = Float { negative, mantissa: integer, exponent: 0 };
            let denominator = Float { negative: false, mantissa: power, exponent: 0 };
            numerator.div(&denominator)
        })
    }

    /// A whole number.
    pub fn from_i64(n: i64) -> Number {
        Float::round(n < 0, BigUint::from(n.unsigned_abs()), 0, false)
    }

    /// The number as an index: a whole number that fits `usize`.
    pub fn as_index(&self) -> Option<usize> {
        match self {
            Number::Finite(f) if f.is_zero() => Some(0),
            Number::Finite(f) if !f.negative && f.exponent >= 0 && f.exponent < 64 => {
                (&f.mantissa << f.exponent as u64).to_usize()
            }
            _ => None,
        }
    }

    /// The number as an `i64` when it is a whole number in range.
    pub fn as_i64(&self) -> Option<i64> {
        match self {
            Number::Finite(f) if f.is_zero() => Some(0),
            Number::Finite(f) if f.exponent >= 0 && f.exponent < 64 => {
                let magnitude = (&f.mantissa << f.exponent as u64).to_i64()?;
                Some(if f.negative { -magnitude } else { magnitude })
            }
            _ => None,
        }
    }

    /// Whether it is a finite whole number.
    pub fn is_integer(&self) -> bool {
        matches!(self, Number::Finite(f) if f.exponent >= 0)
    }

    /// The sign: -1, 0 or 1.
    pub fn sign(&self) -> i8 {
        match self {
            Number::NegInfinity => -1,
            Number::PosInfinity => 1,
            Number::Finite(f) if f.is_zero() => 0,
            Number::Finite(f) if f.negative => -1,
            Number::Finite(_) => 1,
        }
    }

    /// The sum.
    pub fn add(&self, other: &Number) -> Result<Number, String> {
        match (self, other) {
            (Number::Finite(a), Number::Finite(b)) => Ok(a.add(b)),
            (Number::PosInfinity, Number::NegInfinity) | (Number::NegInfinity, Number::PosInfinity) => {
                Err("the sum of infinities of opposite signs is not a number".to_owned())
            }
            (Number::Finite(_), infinite) | (infinite, _) => Ok(infinite.clone()),
        }
    }

    /// The negation.
    pub fn neg(&self) -> Number {
        match self {
            Number::Finite(f) if f.is_zero() => self.clone(),
            Number::Finite(f) => Number::Finite(Float { negative: !f.negative, ..f.clone() }),
            Number::PosInfinity => Number::NegInfinity,
            Number::NegInfinity => Number::PosInfinity,
        }
    }

    /// The absolute value.
    pub fn abs(&self) -> Number {
        if self.sign() < 0 { self.neg() } else { self.clone() }
    }

    /// The difference.
    pub fn sub(&self, other: &Number) -> Result<Number, String> {
        self.add(&other.neg())
    }

    /// The product.
    pub fn mul(&self, other: &Number) -> Result<Number, String> {
        match (self, other) {
            (Number::Finite(a), Number::Finite(b)) => Ok(a.mul(b)),
            _ => match self.sign() * other.sign() {
                0 => Err("zero times infinity is not a number".to_owned()),
                s if s > 0 => Ok(Number::PosInfinity),
                _ => Ok(Number::NegInfinity),
            },
        }
    }

    /// The infinity with the sign of `self` (positive for zero).
    fn infinity_like(&self) -> Number {
        if self.sign() < 0 { Number::NegInfinity } else { Number::PosInfinity }
    }

    /// The quotient; a number divided by zero is the infinity of its sign, as in HCL's reference
    /// implementation.
    pub fn div(&self, other: &Number) -> Result<Number, String> {
        match (self, other) {
            (a, b) if b.sign() == 0 && a.sign() == 0 => Err("zero divided by zero is not a number".to_owned()),
            (a, b) if b.sign() == 0 => Ok(a.infinity_like()),
            (Number::Finite(a), Number::Finite(b)) => Ok(a.div(b)),
            (Number::Finite(_), _) => Ok(Number::Finite(Float::zero())),
            (_, Number::Finite(_)) => {
                Ok(if self.sign() * other.sign() > 0 { Number::PosInfinity } else { Number::NegInfinity })
            }
            _ => Err("infinity divided by infinity is not a number".to_owned()),
        }
    }

    /// The integer part (rounding towards zero); infinities stay.
    pub fn trunc(&self) -> Number {
        match self {
            Number::Finite(f) => Number::Finite(f.trunc()),
            infinite => infinite.clone(),
        }
    }

    /// The remainder of the truncated division (it has the sign of `self`), computed as HCL's
    /// reference does (`a - b × trunc(a / b)`, each step rounded); modulo zero is the infinity of
    /// `self`'s sign.
    pub fn rem(&self, other: &Number) -> Result<Number, String> {
        match (self, other) {
            (a, b) if b.sign() == 0 => Ok(a.infinity_like()),
            (Number::Finite(_), Number::Finite(_)) => {
                let quotient = self.div(other)?.trunc();
                self.sub(&other.mul(&quotient)?)
            }
            (Number::Finite(_), _) => Ok(self.clone()),
            _ => Err("the remainder of an infinity is not a number".to_owned()),
        }
    }
}

impl fmt::Display for Number {
    /// The shortest decimal that reads back as this number, without exponent (`0.1`, `1000`,
    /// `-2.5`), as HCL's reference writes numbers in JSON; infinities as `+Inf` and `-Inf`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let float = match self {
            Number::Finite(float) => float,
            Number::PosInfinity => return f.write_str("+Inf"),
            Number::NegInfinity => return f.write_str("-Inf"),
        };
        // A whole number of at most 128 bits is exact, and no shorter decimal lies within half a
        // unit of the last of 512 bits of it: its digits are the shortest.
        if float.exponent >= 0 && float.top() <= 128 {
            let magnitude = (&float.mantissa << float.exponent as u64).to_u128().unwrap_or_default();
            let sign = if float.negative { "-" } else { "" };
            return write!(f, "{sign}{magnitude}");
        }
        let decimal = float.shortest();
        if decimal.digits.is_empty() {
            return f.write_str("0");
        }
        let mut out = String::with_capacity(decimal.digits.len() + 4);
        if float.negative {
            out.push('-');
        }
        if decimal.point > 0 {
            let point = decimal.point as usize;
            for i in 0..point {
                out.push(decimal.at(i) as char);
            }
            if decimal.digits.len() > point {
                out.push('.');
                out.extend(decimal.digits[point..].iter().map(|&d| d as char));
            }
        } else {
            out.push_str("0.");
            out.extend(std::iter::repeat_n('0', decimal.point.unsigned_abs() as usize));
            out.extend(decimal.digits.iter().map(|&d| d as char));
        }
        f.write_str(&out)
    }
}

#[cfg(test)]
mod tests {
    use super::Number;

    fn n(text: &str) -> Number {
        Number::parse(text).expect("a number")
    }

    #[test]
    fn literals_print_as_written() {
        for text in ["0", "5", "-2.5", "0.1", "3.2", "1000", "0.001", "123456789012345678901234567890"] {
            assert_eq!(n(text).to_string(), text);
        }
        assert_eq!(n("1e3").to_string(), "1000");
        assert_eq!(n("1.50").to_string(), "1.5");
        assert_eq!(n("2.5e-3").to_string(), "0.0025");
        // Whole numbers print all their digits, by the short path (up to 128 bits) or the long one.
        for text in [
            "1267650600228229401496703205376",
            "-340282366920938463463374607431768211455",
            "1606938044258990275541962092341162602522202993782792835301376",
        ] {
            assert_eq!(n(text).to_string(), text);
        }
    }

    #[test]
    fn arithmetic_rounds_at_512_bits_as_the_reference_does() {
        assert_eq!(n("1").div(&n("10")).expect("quotient").to_string(), "0.1");
        assert_eq!(n("2").add(&n("3.5")).expect("sum").to_string(), "5.5");
        assert_eq!(n("11").rem(&n("5")).expect("remainder").to_string(), "1");
        // The value HashiCorp's conformance suite expects of `11 % 5.1`.
        let expected = format!("0.8{}24", "0".repeat(152));
        assert_eq!(n("11").rem(&n("5.1")).expect("remainder").to_string(), expected);
        let pi = "3.14159265358979323846264338327950288419716939937510582097494459";
        assert_eq!(
            n(pi).add(&n("1")).expect("sum").to_string(),
            "4.14159265358979323846264338327950288419716939937510582097494459"
        );
        assert_eq!(n("1").div(&n("3")).expect("quotient").mul(&n("3")).expect("product").to_string(), "1");
    }

    #[test]
    fn order_and_equality_are_numeric() {
        assert!(n("-1") < n("0.5"));
        assert!(n("2") > n("1.999"));
        assert_eq!(n("1.0"), n("1"));
        assert!(Number::NegInfinity < n("-1e100"));
        assert_eq!(n("0.1").add(&n("0.2")).expect("sum"), n("0.3"));
    }

    #[test]
    fn huge_exponents_do_not_hang() {
        assert_eq!(n("1e999999999"), Number::PosInfinity);
        assert_eq!(n("-1e999999999"), Number::NegInfinity);
        assert_eq!(n("1e-999999999").to_string(), "0");
        assert_eq!(n("4").as_index(), Some(4));
        assert_eq!(n("4.5").as_index(), None);
    }
}
