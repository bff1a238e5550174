//! `seq`: print a sequence of numbers.

use super::stream::{Stop, Writer, complain};
use crate::text::*;
use lexopt::prelude::*;
use shell_base::Context;
use shell_base::args::{bad_usage, dashed, parser, string, value};

/// `seq [-s SEP] [-w] [FIRST [INCREMENT]] LAST`.
pub async fn seq(sh: &mut dyn Context, argv: &[String]) -> i32 {
    let mut sep = "\n".to_string();
    let mut equal_width = false;
    let mut format: Option<String> = None;
    let mut nums = Vec::new();
    let mut p = parser(argv);
    let parsed: Result<(), lexopt::Error> = (|| {
        loop {
            // `seq -5 5`: a negative number is an operand, not an option.
            let negative = |n: &str| n.parse::<f64>().is_ok();
            if let Some(n) = dashed(&mut p, negative) {
                nums.push(format!("-{n}"));
                continue;
            }
            let Some(arg) = p.next()? else { break };
            match arg {
                Short('s') | Long("separator") => sep = value(&mut p)?,
                Short('w') | Long("equal-width") => equal_width = true,
                Short('f') | Long("format") => format = Some(value(&mut p)?),
                Value(v) => nums.push(string(v)),
                _ => return Err(arg.unexpected()),
            }
        }
        Ok(())
    })();
    if let Err(e) = parsed {
        return bad_usage(sh, "seq", e, 1).await;
    }
    if nums.is_empty() || nums.len() > 3 {
        let msg = if nums.is_empty() {
            "seq: missing operand".to_string()
        } else {
            format!("seq: extra operand '{}'", nums[3])
        };
        complain(
            sh,
            &format!("{msg}\nTry 'seq --help' for more information."),
        )
        .await;
        return 1;
    }
    let mut parsed = Vec::new();
    for n in &nums {
        match n.parse::<f64>() {
            Ok(v) if v.is_finite() => parsed.push(v),
            _ => {
                complain(sh, &format!("seq: invalid floating point argument: '{n}'\nTry 'seq --help' for more information.")).await;
                return 1;
            }
        }
    }
    let (first, inc, last) = match parsed.as_slice() {
        [l] => (1.0, 1.0, *l),
        [f, l] => (*f, 1.0, *l),
        [f, i, l] => (*f, *i, *l),
        _ => unreachable!("one to three operands"),
    };
    if inc == 0.0 {
        complain(
            sh,
            &format!(
                "seq: invalid Zero increment value: '{}'\nTry 'seq --help' for more information.",
                nums[1]
            ),
        )
        .await;
        return 1;
    }
    // Decimals shown: the most any operand has.
    let decimals = nums
        .iter()
        .map(|n| n.split_once('.').map(|(_, d)| d.len()).unwrap_or(0))
        .max()
        .unwrap_or(0);
    let fmt = |v: f64| match &format {
        // `-f`: a printf format with one floating-point conversion.
        Some(f) => super::awk::format::sprintf(f, &[super::awk::value::Value::Num(v)], "%.6g")
            .unwrap_or_default(),
        None => format!("{v:.decimals$}"),
    };
    let width = if equal_width {
        fmt(first).len().max(fmt(last).len())
    } else {
        0
    };
    let mut out = Writer::new(&sh.io().stdout);
    let mut k = 0u64;
    let mut first_item = true;
    loop {
        let v = first + inc * k as f64;
        if (inc > 0.0 && v > last + 1e-9) || (inc < 0.0 && v < last - 1e-9) {
            break;
        }
        let mut text = fmt(v);
        if equal_width && text.len() < width {
            let neg = text.starts_with('-');
            let digits = text.trim_start_matches('-').to_string();
            text = format!(
                "{}{}{digits}",
                if neg { "-" } else { "" },
                "0".repeat(width - text.len())
            );
        }
        let item = if first_item {
            text
        } else {
            format!("{sep}{text}")
        };
        first_item = false;
        if let Err(Stop(s)) = out.write_str(&item).await {
            return s;
        }
        k += 1;
    }
    if !first_item && let Err(Stop(s)) = out.write_str("\n").await {
        return s;
    }
    done(out.flush().await, 0)
}

#[cfg(all(test, unix))]
mod tests {

    use crate::testing::stdout_of;

    #[test]
    fn ranges_steps_and_formats() {
        assert_eq!(stdout_of(&["seq", "3"], ""), "1\n2\n3\n");
        assert_eq!(stdout_of(&["seq", "-s", ",", "1", "2", "5"], ""), "1,3,5\n");
        assert_eq!(stdout_of(&["seq", "-w", "8", "10"], ""), "08\n09\n10\n");
    }
}
