fn main() {
    println!("amail");
}
