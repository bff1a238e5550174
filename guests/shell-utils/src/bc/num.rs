//! bc's numbers: arbitrary precision decimals, `mantissa / 10^scale`, with POSIX bc's rules
//! for the scale of each result (results are truncated, never rounded).

use num_bigint::BigInt;
use num_integer::Integer;
use num_traits::{One, Signed, ToPrimitive, Zero};

/// The most digits a number may grow to (a guard against `2^99999999`).
pub const MAX_DIGITS: u64 = 1_000_000;

#[derive(Clone, Debug)]
pub struct Num {
    pub m: BigInt,
    pub scale: u32,
}

fn pow10(n: u32) -> BigInt {
    num_traits::pow(BigInt::from(10), n as usize)
}

impl Num {
    pub fn zero() -> Num {
        Num::int(0)
    }

    pub fn int(n: i64) -> Num {
        Num {
            m: BigInt::from(n),
            scale: 0,
        }
    }

    pub fn is_zero(&self) -> bool {
        self.m.is_zero()
    }

    pub fn is_negative(&self) -> bool {
        self.m.is_negative()
    }

    /// The same value with `scale` digits after the point (truncated when fewer).
    pub fn rescale(&self, scale: u32) -> Num {
        let m = if scale >= self.scale {
            &self.m * pow10(scale - self.scale)
        } else {
            // Toward zero, as bc truncates.
            let d = pow10(self.scale - scale);
            let (q, _) = self.m.div_rem(&d);
            q
        };
        Num { m, scale }
    }

    pub fn add(&self, o: &Num) -> Num {
        let s = self.scale.max(o.scale);
        Num {
            m: self.rescale(s).m + o.rescale(s).m,
            scale: s,
        }
    }

    pub fn neg(&self) -> Num {
        Num {
            m: -&self.m,
            scale: self.scale,
        }
    }

    pub fn sub(&self, o: &Num) -> Num {
        self.add(&o.neg())
    }

    /// The exact product.
    pub fn mul_exact(&self, o: &Num) -> Num {
        Num {
            m: &self.m * &o.m,
            scale: self.scale + o.scale,
        }
    }

    pub fn mul(&self, o: &Num, scale: u32) -> Num {
        let full = self.scale + o.scale;
        self.mul_exact(o)
            .rescale(full.min(scale.max(self.scale).max(o.scale)))
    }

    pub fn div(&self, o: &Num, scale: u32) -> Result<Num, &'static str> {
        if o.is_zero() {
            return Err("Divide by zero");
        }
        let num = &self.m * pow10(scale + o.scale);
        let den = &o.m * pow10(self.scale);
        let (q, _) = num.div_rem(&den);
        Ok(Num { m: q, scale })
    }

    pub fn rem(&self, o: &Num, scale: u32) -> Result<Num, &'static str> {
        if o.is_zero() {
            return Err("Modulo by zero");
        }
        let q = self.div(o, scale)?;
        let r = self.sub(&q.mul_exact(o));
        Ok(r.rescale(self.scale.max(scale + o.scale)))
    }

    pub fn pow(&self, e: &Num, scale: u32) -> Result<Num, &'static str> {
        let n = e.rescale(0).m;
        let Some(n) = n.to_i64() else {
            return Err("exponent too large");
        };
        if n == 0 {
            return Ok(Num::int(1));
        }
        let digits = self.m.abs().to_string().len() as u64 + u64::from(self.scale);
        if digits.saturating_mul(n.unsigned_abs()) > MAX_DIGITS {
            return Err("exponent too large (the result would pass 1,000,000 digits)");
        }
        let k = n.unsigned_abs();
        let exact = Num {
            m: num_traits::pow(self.m.clone(), k as usize),
            scale: self.scale * k as u32,
        };
        if n > 0 {
            Ok(exact.rescale(exact.scale.min(scale.max(self.scale))))
        } else {
            Num::int(1).div(&exact, scale)
        }
    }

    pub fn sqrt(&self, scale: u32) -> Result<Num, &'static str> {
        if self.is_negative() {
            return Err("Square root of a negative number");
        }
        let rs = scale.max(self.scale);
        // isqrt(m * 10^(2rs - s)) has rs digits after the point.
        let m = &self.m * pow10(2 * rs - self.scale);
        Ok(Num {
            m: m.sqrt(),
            scale: rs,
        })
    }

    pub fn cmp(&self, o: &Num) -> std::cmp::Ordering {
        let s = self.scale.max(o.scale);
        self.rescale(s).m.cmp(&o.rescale(s).m)
    }

    /// `length(x)`: significant digits.
    pub fn length(&self) -> u32 {
        if self.is_zero() {
            return self.scale.max(1);
        }
        let digits = self.m.abs().to_string().len() as u32;
        digits.max(self.scale)
    }

    /// A number token, read in `ibase`.
    pub fn parse(text: &str, ibase: u32) -> Num {
        let (int, frac) = text.split_once('.').unwrap_or((text, ""));
        let digit = |c: char| c.to_digit(16).unwrap_or(0);
        if ibase == 10 {
            let m: BigInt = format!("{int}{frac}").parse().unwrap_or_default();
            return Num {
                m,
                scale: frac.len() as u32,
            };
        }
        // A lone digit keeps its value whatever the base (as in GNU bc).
        if frac.is_empty() && int.len() == 1 {
            return Num::int(i64::from(digit(int.chars().next().unwrap_or('0'))));
        }
        let base = BigInt::from(ibase);
        let mut m = BigInt::zero();
        for c in int.chars() {
            m = m * &base + BigInt::from(digit(c));
        }
        let mut value = Num { m, scale: 0 };
        if !frac.is_empty() {
            let mut f = BigInt::zero();
            for c in frac.chars() {
                f = f * &base + BigInt::from(digit(c));
            }
            let den = Num {
                m: num_traits::pow(base, frac.len()),
                scale: 0,
            };
            let part = Num { m: f, scale: 0 }
                .div(&den, frac.len() as u32)
                .unwrap_or_else(|_| Num::zero());
            value = value.add(&part);
        }
        value
    }

    /// The number as bc prints it in `obase` (no leading `0` before the point).
    pub fn format(&self, obase: u32) -> String {
        if self.is_zero() {
            return "0".into();
        }
        let neg = self.is_negative();
        let abs = Num {
            m: self.m.abs(),
            scale: self.scale,
        };
        let int = abs.rescale(0).m;
        let frac = abs.sub(&Num {
            m: int.clone(),
            scale: 0,
        });
        let mut text = String::new();
        if neg {
            text.push('-');
        }
        if obase == 10 {
            let digits = abs.m.to_string();
            let s = self.scale as usize;
            let (i, f) = if digits.len() > s {
                digits.split_at(digits.len() - s)
            } else {
                ("", digits.as_str())
            };
            let i = if i == "0" { "" } else { i };
            text.push_str(i);
            if s > 0 {
                text.push('.');
                text.push_str(&"0".repeat(s - f.len()));
                text.push_str(f);
            }
            return text;
        }
        let wide = obase > 16;
        let put = |d: u32, out: &mut String| {
            if wide {
                out.push_str(&format!(" {d:02}"));
            } else {
                out.push(char::from_digit(d, 16).unwrap_or('0').to_ascii_uppercase());
            }
        };
        if !int.is_zero() {
            let base = BigInt::from(obase);
            let mut digits = Vec::new();
            let mut n = int;
            while !n.is_zero() {
                let (q, r) = n.div_rem(&base);
                digits.push(r.to_u32().unwrap_or(0));
                n = q;
            }
            for d in digits.iter().rev() {
                put(*d, &mut text);
            }
        }
        if self.scale > 0 {
            text.push('.');
            // As many digits as it takes to show 10^-scale.
            let limit = pow10(self.scale);
            let mut shown = BigInt::one();
            let mut f = frac;
            while shown < limit {
                f = f.mul_exact(&Num::int(i64::from(obase)));
                let d = f.rescale(0).m;
                put(d.to_u32().unwrap_or(0), &mut text);
                f = f.sub(&Num { m: d, scale: 0 });
                shown *= obase;
            }
        }
        text
    }

    pub fn is_true(&self) -> bool {
        !self.is_zero()
    }
}
