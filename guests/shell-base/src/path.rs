//! Path text as the shell handles it: logical normalisation (`cd` keeps `PWD` this way, and
//! `realpath -s` prints it).

/// `/a/./b/../c` → `/a/c` (logical: `..` removes the name before it, links are not read).
pub fn normalize(path: &str) -> String {
    let mut parts: Vec<&str> = Vec::new();
    for p in path.split('/') {
        match p {
            "" | "." => {}
            ".." => {
                parts.pop();
            }
            p => parts.push(p),
        }
    }
    format!("/{}", parts.join("/"))
}

#[cfg(test)]
mod tests {
    use super::normalize;

    #[test]
    fn dots_and_doubled_slashes_go() {
        assert_eq!(normalize("/a/./b/../c"), "/a/c");
        assert_eq!(normalize("//a//b/"), "/a/b");
        assert_eq!(normalize("/.."), "/");
        assert_eq!(normalize(""), "/");
    }
}
