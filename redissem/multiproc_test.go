package redissem_test

const childEnv = "REDISSEM_TEST_CHILD"

func runChild(role string) int { return 2 }
