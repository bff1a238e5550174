//! `factor`: print the prime factors of numbers (up to 2^128 - 1; GNU's takes any size).

use shell_base::Context;
use shell_base::args::{bad_usage, operands};

use crate::stream::{MEMORY_LIMIT, Stop, Writer, complain, read_all_limited};

/// `factor [NUMBER]...`: the numbers given, or those read from stdin.
pub async fn factor(sh: &mut dyn Context, argv: &[String]) -> i32 {
    let mut words = match operands(argv) {
        Ok(o) => o,
        Err(e) => return bad_usage(sh, "factor", e, 1).await,
    };
    if words.is_empty() {
        let data = match read_all_limited(&sh.io().stdin, MEMORY_LIMIT, "factor").await {
            Ok(d) => d,
            Err(m) => return complain(sh, &m).await,
        };
        words = String::from_utf8_lossy(&data)
            .split_ascii_whitespace()
            .map(str::to_string)
            .collect();
    }
    let mut out = Writer::new(&sh.io().stdout);
    let mut status = 0;
    for word in &words {
        let digits = word
            .trim_start()
            .strip_prefix('+')
            .unwrap_or(word.trim_start());
        if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
            out.flush().await.ok();
            status = complain(
                sh,
                &format!("factor: '{word}' is not a valid positive integer"),
            )
            .await;
            continue;
        }
        let Ok(n) = digits.parse::<u128>() else {
            out.flush().await.ok();
            status = complain(sh, &format!("factor: '{word}' is too large")).await;
            continue;
        };
        let mut line = format!("{n}:");
        for p in factors(n) {
            line.push_str(&format!(" {p}"));
        }
        line.push('\n');
        if let Err(Stop(s)) = out.write_str(&line).await {
            return s;
        }
    }
    match out.flush().await {
        Ok(()) => status,
        Err(Stop(s)) => s,
    }
}

/// The prime factors of `n`, smallest first (none for 0 and 1).
fn factors(mut n: u128) -> Vec<u128> {
    let mut found = Vec::new();
    if n < 2 {
        return found;
    }
    for p in [2u128, 3, 5, 7, 11, 13, 17, 19, 23, 29, 31, 37] {
        while n.is_multiple_of(p) {
            found.push(p);
            n /= p;
        }
    }
    let mut stack = vec![n];
    while let Some(m) = stack.pop() {
        if m == 1 {
            continue;
        }
        if is_prime(m) {
            found.push(m);
            continue;
        }
        let d = rho(m);
        stack.push(d);
        stack.push(m / d);
    }
    found.sort_unstable();
    found
}

/// `a * b % m` without overflow.
fn mul_mod(a: u128, b: u128, m: u128) -> u128 {
    if m <= u128::from(u64::MAX) {
        return a * b % m;
    }
    let (mut a, mut b, mut r) = (a % m, b, 0u128);
    while b > 0 {
        if b & 1 == 1 {
            r = add_mod(r, a, m);
        }
        a = add_mod(a, a, m);
        b >>= 1;
    }
    r
}

fn add_mod(a: u128, b: u128, m: u128) -> u128 {
    if a >= m - b { a - (m - b) } else { a + b }
}

fn pow_mod(mut b: u128, mut e: u128, m: u128) -> u128 {
    let mut r = 1 % m;
    b %= m;
    while e > 0 {
        if e & 1 == 1 {
            r = mul_mod(r, b, m);
        }
        b = mul_mod(b, b, m);
        e >>= 1;
    }
    r
}

/// Miller–Rabin with the first 12 primes as bases: exact below 3.3 * 10^24, and wrong for
/// no known number above.
fn is_prime(n: u128) -> bool {
    const BASES: [u128; 12] = [2, 3, 5, 7, 11, 13, 17, 19, 23, 29, 31, 37];
    if n < 2 {
        return false;
    }
    if let Some(&p) = BASES.iter().find(|&&p| n.is_multiple_of(p)) {
        return n == p;
    }
    let s = (n - 1).trailing_zeros();
    let d = (n - 1) >> s;
    'bases: for a in BASES {
        let mut x = pow_mod(a, d, n);
        if x == 1 || x == n - 1 {
            continue;
        }
        for _ in 1..s {
            x = mul_mod(x, x, n);
            if x == n - 1 {
                continue 'bases;
            }
        }
        return false;
    }
    true
}

fn gcd(mut a: u128, mut b: u128) -> u128 {
    while b != 0 {
        (a, b) = (b, a % b);
    }
    a
}

/// A non-trivial divisor of the odd composite `n` (Pollard's rho, Brent's cycle finding).
fn rho(n: u128) -> u128 {
    for c in 1u128.. {
        let f = |x: u128| add_mod(mul_mod(x, x, n), c % n, n);
        let (mut x, mut y, mut d) = (2u128, 2u128, 1u128);
        while d == 1 {
            x = f(x);
            y = f(f(y));
            d = gcd(x.abs_diff(y), n);
        }
        if d != n {
            return d;
        }
    }
    n
}

#[cfg(all(test, unix))]
mod tests {
    use super::factors;
    use crate::testing::stdout_of;

    #[test]
    fn small_and_large_numbers() {
        assert_eq!(factors(360), [2, 2, 2, 3, 3, 5]);
        assert_eq!(factors(1), Vec::<u128>::new());
        assert_eq!(factors(18446744073709551617), [274177, 67280421310721]);
        let big = 170141183460469231731687303715884105727u128; // 2^127 - 1, a prime
        assert_eq!(factors(big), [big]);
        assert_eq!(stdout_of(&["factor"], "12 7\n"), "12: 2 2 3\n7: 7\n");
    }
}
