//! `bc -l`'s library: `s c a l e j`, computed with guard digits and truncated to `scale`,
//! as GNU bc's library (written in bc) gives them.

use super::num::Num;

/// Extra digits carried while computing.
const GUARD: u32 = 10;

fn n(v: i64) -> Num {
    Num::int(v)
}

/// `e(x)`.
pub fn exp(x: &Num, scale: u32) -> Result<Num, &'static str> {
    let w = scale + GUARD;
    if x.is_negative() {
        let pos = exp(&x.neg(), w)?;
        return n(1).div(&pos, scale);
    }
    // e^x has x/ln(10) digits: past 1,000,000 of them is past bc's number limit here.
    if x.cmp(&n(2_302_586)).is_gt() {
        return Err("e() of a number so large that the result would pass 1,000,000 digits");
    }
    // e^x = (e^(x/2^k))^(2^k), with x/2^k below 1.
    let mut y = x.clone();
    let mut k = 0;
    while y.cmp(&n(1)).is_ge() {
        y = y.div(&n(2), w)?;
        k += 1;
    }
    let mut sum = n(1);
    let mut term = n(1);
    for i in 1.. {
        term = term.mul(&y, w).div(&n(i), w)?;
        if term.is_zero() {
            break;
        }
        sum = sum.add(&term);
    }
    for _ in 0..k {
        sum = sum.mul(&sum, w);
    }
    Ok(sum.rescale(scale))
}

/// `l(x)`: the natural logarithm.
pub fn ln(x: &Num, scale: u32) -> Result<Num, &'static str> {
    if x.is_negative() || x.is_zero() {
        return Err("l() of a number that is not positive");
    }
    let w = scale + GUARD;
    // ln x = 2^k ln(x^(1/2^k)); near 1, ln y = 2 atanh((y-1)/(y+1)).
    let mut y = x.clone();
    let mut k = 0u32;
    let near = Num::parse("0.5", 10);
    let far = |y: &Num| {
        let d = y.sub(&n(1));
        let d = if d.is_negative() { d.neg() } else { d };
        d.cmp(&near).is_gt()
    };
    while far(&y) {
        y = y.sqrt(w)?;
        k += 1;
    }
    let u = y.sub(&n(1)).div(&y.add(&n(1)), w)?;
    let u2 = u.mul(&u, w);
    let mut sum = u.clone();
    let mut power = u.clone();
    for i in (3..).step_by(2) {
        power = power.mul(&u2, w);
        let term = power.div(&n(i), w)?;
        if term.is_zero() {
            break;
        }
        sum = sum.add(&term);
    }
    let factor = Num {
        m: num_bigint::BigInt::from(2u32) << k,
        scale: 0,
    };
    Ok(sum.mul(&factor, w).rescale(scale))
}

/// `a(x)`: the arctangent.
pub fn atan(x: &Num, scale: u32) -> Result<Num, &'static str> {
    let w = scale + GUARD;
    if x.is_negative() {
        return Ok(atan(&x.neg(), scale)?.neg());
    }
    if x.cmp(&n(1)).is_gt() {
        // a(x) = pi/2 - a(1/x).
        let half_pi = atan(&n(1), w)?.mul(&n(2), w);
        let inv = n(1).div(x, w)?;
        return Ok(half_pi.sub(&atan(&inv, w)?).rescale(scale));
    }
    // Halve the angle until x is small: a(x) = 2 a(x / (1 + sqrt(1 + x^2))).
    let mut y = x.clone();
    let mut k = 0;
    let small = Num::parse("0.2", 10);
    while y.cmp(&small).is_gt() {
        let r = n(1).add(&y.mul(&y, w)).sqrt(w)?;
        y = y.div(&n(1).add(&r), w)?;
        k += 1;
    }
    let y2 = y.mul(&y, w);
    let mut sum = y.clone();
    let mut power = y.clone();
    for i in 1.. {
        power = power.mul(&y2, w);
        let term = power.div(&n(2 * i + 1), w)?;
        if term.is_zero() {
            break;
        }
        sum = if i % 2 == 1 {
            sum.sub(&term)
        } else {
            sum.add(&term)
        };
    }
    let factor = n(1i64 << k);
    Ok(sum.mul(&factor, w).rescale(scale))
}

/// `s(x)`: the sine.
pub fn sin(x: &Num, scale: u32) -> Result<Num, &'static str> {
    let w = scale + GUARD;
    let pi = atan(&n(1), w + 2)?.mul(&n(4), w + 2);
    // Into (-pi, pi].
    let two_pi = pi.mul(&n(2), w + 2);
    let turns = x.div(&two_pi, 0)?;
    let mut y = x.sub(&turns.mul(&two_pi, w + 2)).rescale(w);
    if y.cmp(&pi).is_gt() {
        y = y.sub(&two_pi);
    }
    if y.neg().cmp(&pi).is_gt() {
        y = y.add(&two_pi);
    }
    let y2 = y.mul(&y, w);
    let mut sum = y.clone();
    let mut term = y.clone();
    for i in 1.. {
        term = term.mul(&y2, w).div(&n((2 * i) * (2 * i + 1)), w)?.neg();
        if term.is_zero() {
            break;
        }
        sum = sum.add(&term);
    }
    Ok(sum.rescale(scale))
}

/// `c(x)`: the cosine, as `s(x + pi/2)`.
pub fn cos(x: &Num, scale: u32) -> Result<Num, &'static str> {
    let w = scale + GUARD;
    let half_pi = atan(&n(1), w)?.mul(&n(2), w);
    sin(&x.add(&half_pi), scale)
}

/// `j(n, x)`: the Bessel function of integer order `n`.
pub fn bessel(order: &Num, x: &Num, scale: u32) -> Result<Num, &'static str> {
    let w = scale + GUARD;
    let ord = order.rescale(0);
    let k_order: i64 = ord.m.to_string().parse().map_err(|_| "order too large")?;
    if k_order.unsigned_abs() > 10_000 {
        return Err("order too large");
    }
    let neg = k_order < 0;
    let order = k_order.unsigned_abs() as i64;
    // sum_k (-1)^k (x/2)^(2k+n) / (k! (n+k)!)
    let half = x.div(&n(2), w)?;
    let half2 = half.mul(&half, w);
    let mut term = n(1);
    for i in 1..=order {
        term = term.mul(&half, w).div(&n(i), w)?;
    }
    let mut sum = term.clone();
    for k in 1.. {
        term = term.mul(&half2, w).div(&n(k * (order + k)), w)?.neg();
        if term.is_zero() {
            break;
        }
        sum = sum.add(&term);
    }
    // J(-n, x) = (-1)^n J(n, x).
    if neg && order % 2 == 1 {
        sum = sum.neg();
    }
    Ok(sum.rescale(scale))
}
