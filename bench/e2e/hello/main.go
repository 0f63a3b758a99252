// Command hello prints a greeting: the smallest Go program, against which
// bench/e2e weighs the harness's start-up.
package main

import "fmt"

func main() { fmt.Println("hello") }
