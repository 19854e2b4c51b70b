package outsideshared

import (
	"os"
	"strings"
)

func getenv(k string) string      { return os.Getenv(k) }
func contains(s, sub string) bool { return strings.Contains(s, sub) }
