// Package keys checks the answer keys of docs/exercises.md by applying
// each break the exercises ask for and running the tests the key names.
//
// A key row says: make this change, and these tests fail. Its test
// (keys_test.go) reads the row from the page, applies the change to a copy
// of the file through go build's -overlay (the tree is never edited), runs
// the package's tests in a subprocess with -json, and requires that the
// failing tests are exactly those the row names: a key that predicts the
// wrong failure, a change that no longer applies to the code, or a
// failure the key does not mention, all fail the test.
package keys
