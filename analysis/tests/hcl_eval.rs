//! Evaluation of HCL expressions: every attribute of `test_data/hcl/eval.hcl` evaluated in one
//! context, compared with the values written out in `eval.values` (`UPDATE_EXPECT=1` rewrites it).

use nacl_analysis::hcl::{
    eval::{Context, Function, Param, evaluate},
    value::{Number, Type, Value, convert},
};
use nacl_syntax::hcl::ast::{AstNodeExt, BodyItem};
use std::{collections::BTreeMap, fmt::Write, path::Path, sync::Arc};

fn strings(items: &[&str]) -> Vec<Value> {
    items.iter().map(|s| Value::string(s)).collect()
}

fn context() -> Context {
    let mut variables = BTreeMap::new();
    variables.insert("num".to_owned(), Value::number(3));
    variables.insert("str".to_owned(), Value::string("hello"));
    variables.insert("list".to_owned(), Value::List(Type::String, strings(&["a", "b", "c"])));
    variables.insert("tuple_var".to_owned(), Value::Tuple(vec![Value::number(10), Value::string("x")]));
    variables.insert("numbers".to_owned(), Value::List(Type::Number, vec![Value::number(4), Value::number(9)]));
    variables.insert(
        "map".to_owned(),
        Value::Map(
            Type::String,
            [("x", "1"), ("y", "2")].iter().map(|(k, v)| (k.to_string(), Value::string(v))).collect(),
        ),
    );
    let item = |id: i64, tag: &str| {
        Value::Object(BTreeMap::from([
            ("id".to_owned(), Value::number(id)),
            ("tags".to_owned(), Value::Tuple(vec![Value::string(tag)])),
        ]))
    };
    variables.insert(
        "obj".to_owned(),
        Value::Object(BTreeMap::from([
            ("name".to_owned(), Value::string("x")),
            ("items".to_owned(), Value::List(item(1, "t").ty(), vec![item(1, "one"), item(2, "two")])),
        ])),
    );
    variables.insert("null_str".to_owned(), Value::Null(Type::String));
    variables.insert("dyn".to_owned(), Value::dynamic());
    let mut functions = BTreeMap::new();
    let param = |name: &str, ty: Type| Param { name: name.to_owned(), ty, allow_null: false };
    functions.insert(
        "upper".to_owned(),
        Function {
            params: vec![param("s", Type::String)],
            variadic: None,
            returns: Type::String,
            implementation: Arc::new(|args: &[Value]| match &args[0] {
                Value::String(s) => Ok(Value::string(&s.to_uppercase())),
                _ => Err("not a string".to_owned()),
            }),
        },
    );
    functions.insert(
        "max".to_owned(),
        Function {
            params: Vec::new(),
            variadic: Some(param("numbers", Type::Number)),
            returns: Type::Number,
            implementation: Arc::new(|args: &[Value]| {
                let mut best: Option<Number> = None;
                for arg in args {
                    if let Value::Number(n) = arg {
                        best = Some(best.map_or(n.clone(), |b| b.max(n.clone())));
                    }
                }
                best.map(Value::Number).ok_or_else(|| "no numbers".to_owned())
            }),
        },
    );
    Context { variables, functions: Arc::new(functions) }
}

#[test]
fn evaluation_fixture() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("test_data/hcl/eval.hcl");
    let text = std::fs::read_to_string(&path).expect("the fixture is UTF-8");
    let parse = nacl_syntax::hcl::parse(&text);
    assert!(parse.errors().is_empty(), "{:?}", parse.errors());
    let context = context();
    let mut out = String::new();
    for item in parse.tree().items() {
        let BodyItem::Attribute(attribute) = item else { continue };
        let (Some(name), Some(value)) = (attribute.name(), attribute.value()) else { continue };
        let (result, errors) = evaluate(&value, &context);
        let _ = write!(out, "{} = {}", name.text(), result);
        if !matches!(result, Value::Unknown(_)) || result.ty() != Type::Dynamic {
            let _ = write!(out, " : {}", result.ty());
        }
        for error in errors {
            let _ = write!(out, "\n  error {:?}: {}", &text[error.range], error.message);
        }
        out.push('\n');
        let _ = attribute.syntax();
    }
    expect_test::expect_file![path.with_extension("values")].assert_eq(&out);
}

#[test]
fn conversions_and_unification() {
    let n = |s: &str| Value::Number(Number::parse(s).expect("a number"));
    assert_eq!(convert(&n("1.50"), &Type::String).map(|v| v.to_string()), Ok("\"1.5\"".to_owned()));
    assert_eq!(convert(&n("1e3"), &Type::String).map(|v| v.to_string()), Ok("\"1000\"".to_owned()));
    assert!(convert(&Value::string("1e3"), &Type::Number).is_err(), "no exponent in strings");
    assert_eq!(convert(&Value::string("1"), &Type::Bool).map(|v| v.to_string()), Ok("true".to_owned()));
    assert!(convert(&Value::string("yes"), &Type::Bool).is_err());
    assert!(convert(&Value::Bool(true), &Type::Number).is_err(), "no bool to number");
    let tuple = Value::Tuple(vec![Value::number(1), Value::string("2")]);
    assert_eq!(
        convert(&tuple, &Type::List(Box::new(Type::Dynamic))).map(|v| v.to_string()),
        Ok("list[\"1\", \"2\"]".to_owned()),
        "a tuple becomes a list of its unified element type"
    );
    let set = convert(
        &Value::Tuple(vec![Value::number(2), Value::number(1), Value::number(2)]),
        &Type::Set(Box::new(Type::Number)),
    );
    assert_eq!(set.map(|v| v.to_string()), Ok("set[1, 2]".to_owned()));
    let object = Value::Object(BTreeMap::from([("a".to_owned(), Value::number(1))]));
    let wider = Type::Object(BTreeMap::from([("a".to_owned(), Type::String), ("b".to_owned(), Type::Bool)]));
    assert_eq!(convert(&object, &wider).map(|v| v.to_string()), Ok("object{a = \"1\", b = null}".to_owned()));
    assert_eq!(convert(&Value::Null(Type::Dynamic), &Type::Number).map(|v| v.ty()), Ok(Type::Number));
    assert_eq!(convert(&Value::dynamic(), &Type::String).map(|v| v.to_string()), Ok("(unknown string)".to_owned()));
    use nacl_analysis::hcl::value::unify;
    assert_eq!(unify(&[Type::Number, Type::String]), Some(Type::String));
    assert_eq!(unify(&[Type::Number, Type::Bool]), None);
    assert_eq!(unify(&[Type::Dynamic, Type::Bool]), Some(Type::Bool));
    assert_eq!(
        unify(&[Type::List(Box::new(Type::Number)), Type::Set(Box::new(Type::String))]),
        Some(Type::List(Box::new(Type::String)))
    );
    assert_eq!(
        unify(&[
            Type::Object(BTreeMap::from([("a".to_owned(), Type::Number)])),
            Type::Object(BTreeMap::from([("b".to_owned(), Type::Bool)]))
        ]),
        Some(Type::Object(BTreeMap::from([("a".to_owned(), Type::Number), ("b".to_owned(), Type::Bool)])))
    );
    // Strings compare after NFC normalization: a precomposed é equals e and a combining accent.
    assert_eq!(Value::string("\u{e9}").equals(&Value::string("e\u{301}")), Some(true));
    assert_eq!(n("1").equals(&Value::dynamic()), None, "unknown makes equality unknown");
}
