package fence_test

import (
	"fmt"

	"harness/fence"
)

func ExampleWithin() {
	fmt.Println(fence.Within("/ws", "/ws/src/main.go"))
	fmt.Println(fence.Within("/ws", "/ws/../etc/passwd"))
	fmt.Println(fence.Within("/ws", "/wsx/main.go"))
	// Output:
	// true
	// false
	// false
}

func ExampleSecretName() {
	fmt.Println(fence.SecretName(".env.local"))
	fmt.Println(fence.SecretName("main.go"))
	// Output:
	// .env* true
	//  false
}
