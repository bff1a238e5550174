//! `xsv stats`: each column's type (`NULL` < `Integer` < `Float` < `Unicode`), sum, min, max,
//! shortest and longest value, mean and (population) standard deviation, computed as xsv
//! computes them (the `stats` crate's online mean and variance).

use lexopt::prelude::*;
use shell_base::Context;
use shell_base::args::{parser, plain, string, value};

use super::{Common, Outcome, columns};

#[derive(Clone, Copy, PartialEq, PartialOrd)]
enum Kind {
    Null,
    Integer,
    Float,
    Unicode,
}

/// One column's running statistics.
struct Column {
    kind: Kind,
    int_sum: i64,
    float_sum: f64,
    min_num: Option<f64>,
    max_num: Option<f64>,
    min_text: Option<String>,
    max_text: Option<String>,
    lengths: Option<(usize, usize)>,
    size: u64,
    mean: f64,
    variance: f64,
}

impl Column {
    fn new() -> Column {
        Column {
            kind: Kind::Null,
            int_sum: 0,
            float_sum: 0.0,
            min_num: None,
            max_num: None,
            min_text: None,
            max_text: None,
            lengths: None,
            size: 0,
            mean: 0.0,
            variance: 0.0,
        }
    }

    fn add(&mut self, v: &str) {
        let len = v.len();
        self.lengths = Some(match self.lengths {
            None => (len, len),
            Some((lo, hi)) => (lo.min(len), hi.max(len)),
        });
        if v.is_empty() {
            return;
        }
        if self.min_text.as_deref().is_none_or(|m| v < m) {
            self.min_text = Some(v.to_string());
        }
        if self.max_text.as_deref().is_none_or(|m| v > m) {
            self.max_text = Some(v.to_string());
        }
        let (kind, number) = if let Ok(i) = v.parse::<i64>() {
            self.int_sum = self.int_sum.wrapping_add(i);
            (Kind::Integer, Some(i as f64))
        } else if let Ok(f) = v.parse::<f64>() {
            (Kind::Float, Some(f))
        } else {
            (Kind::Unicode, None)
        };
        if kind > self.kind {
            self.kind = kind;
        }
        if let Some(x) = number {
            self.float_sum += x;
            self.min_num = Some(self.min_num.map_or(x, |m| m.min(x)));
            self.max_num = Some(self.max_num.map_or(x, |m| m.max(x)));
            // The `stats` crate's OnlineStats::add, step for step.
            let old = self.mean;
            let prevq = self.variance * self.size as f64;
            self.size += 1;
            self.mean += (x - old) / self.size as f64;
            self.variance = (prevq + (x - old) * (x - self.mean)) / self.size as f64;
        }
    }

    fn row(&self, name: &str) -> Vec<String> {
        let (kind, sum, min, max, mean, stddev) = match self.kind {
            Kind::Null => (
                "NULL",
                String::new(),
                String::new(),
                String::new(),
                String::new(),
                String::new(),
            ),
            Kind::Unicode => (
                "Unicode",
                String::new(),
                self.min_text.clone().unwrap_or_default(),
                self.max_text.clone().unwrap_or_default(),
                String::new(),
                String::new(),
            ),
            numeric => {
                let show = |x: Option<f64>| {
                    x.map(|x| {
                        if numeric == Kind::Integer {
                            (x as i64).to_string()
                        } else {
                            x.to_string()
                        }
                    })
                    .unwrap_or_default()
                };
                let sum = if numeric == Kind::Integer {
                    self.int_sum.to_string()
                } else {
                    self.float_sum.to_string()
                };
                let kind = if numeric == Kind::Integer {
                    "Integer"
                } else {
                    "Float"
                };
                (
                    kind,
                    sum,
                    show(self.min_num),
                    show(self.max_num),
                    self.mean.to_string(),
                    self.variance.sqrt().to_string(),
                )
            }
        };
        let (lo, hi) = self
            .lengths
            .map_or((String::new(), String::new()), |(a, b)| {
                (a.to_string(), b.to_string())
            });
        vec![
            name.to_string(),
            kind.into(),
            sum,
            min,
            max,
            lo,
            hi,
            mean,
            stddev,
        ]
    }
}

/// `xsv stats [-s SELECTION] [FILE]`.
pub async fn stats(sh: &mut dyn Context, argv: &[String]) -> Outcome {
    let (c, argv) = Common::take(argv)?;
    let argv = &argv;
    let mut spec = None;
    let mut file = None;
    let mut p = parser(argv);
    while let Some(arg) = p.next()? {
        match arg {
            Short('s') | Long("select") => spec = Some(value(&mut p)?),
            Short('j') | Long("jobs") | Long("cache-threshold") => {
                value(&mut p)?;
            }
            Long("everything" | "mode" | "cardinality" | "median") => {
                return Err(plain(
                    "--everything, --mode, --cardinality and --median are not built in",
                )
                .into());
            }
            Long("nulls") => {}
            Value(v) => file = Some(string(v)),
            _ => return Err(arg.unexpected().into()),
        }
    }
    let t = c.read(sh, file.as_deref()).await?;
    let cols = columns(spec.as_deref(), &t, c.no_headers)?;
    let mut rows = Vec::new();
    for &col in &cols {
        let mut s = Column::new();
        for r in &t.rows {
            s.add(r.get(col).map_or("", String::as_str));
        }
        let name = if c.no_headers {
            col.to_string()
        } else {
            t.headers.get(col).cloned().unwrap_or_default()
        };
        rows.push(s.row(&name));
    }
    let header = [
        "field",
        "type",
        "sum",
        "min",
        "max",
        "min_length",
        "max_length",
        "mean",
        "stddev",
    ]
    .map(String::from);
    let out = Common {
        no_headers: false,
        ..c
    };
    out.write(sh, &header, &rows).await
}
