//! Expressions: operators, assignment to variables, fields and elements, user function calls.

use std::cell::RefCell;
use std::rc::Rc;

use super::ast::*;
use super::run::{Array, Cell, Jump, MAX_CALL_DEPTH, Machine, Place, Task, fatal};
use super::value::{Value, compare};

fn truth(b: bool) -> Value {
    Value::Num(if b { 1.0 } else { 0.0 })
}

impl<'p> Machine<'p, '_, '_> {
    pub fn eval<'x>(&'x mut self, e: &'p Expr) -> Task<'x, Value> {
        Box::pin(async move {
            Ok(match e {
                Expr::Num(n) => Value::Num(*n),
                Expr::Str(s) => Value::Str(s.clone()),
                Expr::Regex(i) => truth(self.literals[*i].is_match(&self.record)),
                Expr::Var(v) => self.get_var(*v)?,
                Expr::Group(inner) => self.operand(inner).await?,
                Expr::Field(index) => {
                    let i = self.operand(index).await?;
                    let i = self.field_index(&i)?;
                    self.get_field(i)
                }
                Expr::Index(var, subscripts) => {
                    let key = self.subscript(subscripts).await?;
                    let array = self.array(*var)?;
                    let mut array = array.borrow_mut();
                    array.entry(key).or_default().clone()
                }
                Expr::In(subscripts, var) => {
                    let key = self.subscript(subscripts).await?;
                    truth(self.array(*var)?.borrow().contains_key(&key))
                }
                Expr::Assign(target, op, value) => {
                    let place = self.place(target).await?;
                    let v = self.operand(value).await?;
                    let v = match op {
                        None => v,
                        Some(op) => {
                            let current = self.read(&place)?.to_num();
                            Value::Num(arithmetic(*op, current, v.to_num())?)
                        }
                    };
                    self.assign(place, v.clone())?;
                    v
                }
                Expr::Cond(cond, then, other) => {
                    if self.operand(cond).await?.is_true() {
                        self.operand(then).await?
                    } else {
                        self.operand(other).await?
                    }
                }
                Expr::And(a, b) => {
                    truth(self.operand(a).await?.is_true() && self.operand(b).await?.is_true())
                }
                Expr::Or(a, b) => {
                    truth(self.operand(a).await?.is_true() || self.operand(b).await?.is_true())
                }
                Expr::Not(a) => truth(!self.operand(a).await?.is_true()),
                Expr::Binary(op, a, b) => {
                    let x = self.operand(a).await?.to_num();
                    let y = self.operand(b).await?.to_num();
                    Value::Num(arithmetic(*op, x, y)?)
                }
                Expr::Cmp(op, a, b) => {
                    let x = self.operand(a).await?;
                    let y = self.operand(b).await?;
                    let ord = compare(&x, &y, &self.convfmt);
                    truth(match op {
                        CmpOp::Lt => ord.is_lt(),
                        CmpOp::Le => ord.is_le(),
                        CmpOp::Eq => ord.is_eq(),
                        CmpOp::Ne => ord.is_ne(),
                        CmpOp::Gt => ord.is_gt(),
                        CmpOp::Ge => ord.is_ge(),
                    })
                }
                Expr::Match(negate, text, re) => {
                    let text = self.operand(text).await?.into_string(&self.convfmt);
                    let re = self.regex_of(re).await?;
                    truth(re.is_match(&text) != *negate)
                }
                Expr::Concat(a, b) => {
                    let mut s = self.operand(a).await?.into_string(&self.convfmt);
                    let b = self.operand(b).await?;
                    s.push_str(&b.to_str(&self.convfmt));
                    Value::Str(s)
                }
                Expr::Neg(a) => Value::Num(-self.operand(a).await?.to_num()),
                Expr::Plus(a) => Value::Num(self.operand(a).await?.to_num()),
                Expr::Incr(target, step, pre) => {
                    let place = self.place(target).await?;
                    let old = self.read(&place)?.to_num();
                    self.assign(place, Value::Num(old + step))?;
                    Value::Num(if *pre { old + step } else { old })
                }
                Expr::Call(f, args) => self.call(*f, args).await?,
                Expr::Builtin(b, args) => self.builtin(*b, args).await?,
                Expr::Getline(source, target) => self.getline(source, target).await?,
            })
        })
    }

    /// Evaluates `e`, without boxing a future for the common leaves (constants, variables,
    /// `$n`): most operands are leaves, and a box per node was most of the time spent.
    pub async fn operand(&mut self, e: &'p Expr) -> Result<Value, Jump> {
        match e {
            Expr::Num(n) => Ok(Value::Num(*n)),
            Expr::Str(s) => Ok(Value::Str(s.clone())),
            Expr::Var(v) => self.get_var(*v),
            Expr::Field(index) => {
                let i = match &**index {
                    Expr::Num(n) => Value::Num(*n),
                    Expr::Var(v) => self.get_var(*v)?,
                    other => self.eval(other).await?,
                };
                let i = self.field_index(&i)?;
                Ok(self.get_field(i))
            }
            other => self.eval(other).await,
        }
    }

    /// The key for `a[i, j]`: the subscripts joined by SUBSEP.
    pub async fn subscript(&mut self, subscripts: &'p [Expr]) -> Result<String, Jump> {
        let mut key = String::new();
        for (i, s) in subscripts.iter().enumerate() {
            if i > 0 {
                key.push_str(&self.subsep);
            }
            let v = self.operand(s).await?;
            key.push_str(&v.to_str(&self.convfmt));
        }
        Ok(key)
    }

    /// Resolves an assignable expression (evaluating its subscripts or field number once).
    pub async fn place(&mut self, target: &'p Expr) -> Result<Place, Jump> {
        match target {
            Expr::Var(v) => Ok(Place::Var(*v)),
            Expr::Field(index) => {
                let i = self.operand(index).await?;
                Ok(Place::Field(self.field_index(&i)?))
            }
            Expr::Index(var, subscripts) => {
                let key = self.subscript(subscripts).await?;
                Ok(Place::Element(self.array(*var)?, key))
            }
            Expr::Group(inner) => Box::pin(self.place(inner)).await,
            _ => fatal("assignment to something that is not a variable"),
        }
    }

    pub fn read(&mut self, place: &Place) -> Result<Value, Jump> {
        match place {
            Place::Var(v) => self.get_var(*v),
            Place::Field(i) => Ok(self.get_field(*i)),
            Place::Element(array, key) => {
                Ok(array.borrow_mut().entry(key.clone()).or_default().clone())
            }
        }
    }

    pub fn assign(&mut self, place: Place, value: Value) -> Result<(), Jump> {
        match place {
            Place::Var(v) => self.set_var(v, value),
            Place::Field(i) => {
                let text = value.into_string(&self.convfmt);
                self.set_field(i, text)
            }
            Place::Element(array, key) => {
                array.borrow_mut().insert(key, value);
                Ok(())
            }
        }
    }

    /// Calls a user function: scalars by value, arrays by reference.
    async fn call(&mut self, f: usize, args: &'p [Expr]) -> Result<Value, Jump> {
        let func = &self.prog.functions[f];
        if args.len() > func.params {
            return fatal(format!(
                "function `{}' called with more arguments than declared",
                func.name
            ));
        }
        if self.frames.len() >= MAX_CALL_DEPTH {
            return fatal(format!(
                "function calls nested deeper than {MAX_CALL_DEPTH} (awk's call depth limit)"
            ));
        }
        let mut frame = Vec::with_capacity(func.params);
        // Unused variables passed in: if the function makes them arrays, so is the caller's.
        let mut untyped: Vec<(usize, Var, Rc<RefCell<Array>>)> = Vec::new();
        for (i, a) in args.iter().enumerate() {
            if let Expr::Var(v) = a
                && *v != Var::Global(super::ast::special::NF)
            {
                match self.cell(*v).clone() {
                    Cell::Array(array) => {
                        frame.push(Cell::Array(array));
                        continue;
                    }
                    Cell::Uninit | Cell::Untyped(_) => {
                        let array = match self.cell(*v) {
                            Cell::Untyped(a) => Rc::clone(a),
                            _ => Rc::new(RefCell::new(Array::new())),
                        };
                        untyped.push((i, *v, Rc::clone(&array)));
                        frame.push(Cell::Untyped(array));
                        continue;
                    }
                    Cell::Scalar(_) => {}
                }
            }
            let v = self.operand(a).await?;
            frame.push(Cell::Scalar(v));
        }
        frame.resize(func.params, Cell::Uninit);
        self.frames.push(frame);
        let result = self.exec_block(&func.body).await;
        let frame = self.frames.pop().unwrap_or_default();
        for (i, var, array) in untyped {
            if matches!(frame.get(i), Some(Cell::Array(a)) if Rc::ptr_eq(a, &array))
                && matches!(self.cell(var), Cell::Uninit | Cell::Untyped(_))
            {
                *self.cell(var) = Cell::Array(array);
            }
        }
        match result {
            Ok(()) => Ok(Value::Uninit),
            Err(Jump::Return(v)) => Ok(v),
            Err(other) => Err(other),
        }
    }
}

pub fn arithmetic(op: BinOp, x: f64, y: f64) -> Result<f64, Jump> {
    Ok(match op {
        BinOp::Add => x + y,
        BinOp::Sub => x - y,
        BinOp::Mul => x * y,
        BinOp::Div if y == 0.0 => return fatal("division by zero attempted"),
        BinOp::Div => x / y,
        BinOp::Mod if y == 0.0 => return fatal("division by zero attempted in `%'"),
        BinOp::Mod => x % y,
        BinOp::Pow => x.powf(y),
    })
}
