//! `seq`: print a sequence of numbers.

use super::stream::{Stop, Writer, complain};
use crate::text::*;
use shell_base::Context;

/// `seq [-s SEP] [-w] [FIRST [INCREMENT]] LAST`.
pub async fn seq(sh: &mut dyn Context, argv: &[String]) -> i32 {
    let mut sep = "\n".to_string();
    let mut equal_width = false;
    let mut format: Option<String> = None;
    let mut nums = Vec::new();
    let mut i = 1;
    while i < argv.len() {
        let a = &argv[i];
        match a.as_str() {
            "-s" => {
                i += 1;
                sep = argv.get(i).cloned().unwrap_or_default();
            }
            "-w" | "--equal-width" => equal_width = true,
            "-f" | "--format" => {
                i += 1;
                format = argv.get(i).cloned();
            }
            s if s.starts_with("--format=") => format = Some(s[9..].to_string()),
            s if s.starts_with("-f") && s.len() > 2 => format = Some(s[2..].to_string()),
            s if s.starts_with("-s") && s.len() > 2 => sep = s[2..].to_string(),
            s if s.starts_with('-') && s.parse::<f64>().is_err() => {
                complain(
                    sh,
                    &format!(
                        "seq: invalid option -- '{}'\nTry 'seq --help' for more information.",
                        s.chars().nth(1).unwrap_or('-')
                    ),
                )
                .await;
                return 1;
            }
            s => nums.push(s.to_string()),
        }
        i += 1;
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
