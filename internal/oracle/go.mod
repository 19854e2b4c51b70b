module github.com/semacat/sem/internal/oracle

go 1.25.0

require (
	github.com/anishathalye/porcupine v1.3.1
	github.com/semacat/sem v0.1.0
	github.com/stretchr/testify v1.12.1
	go.uber.org/goleak v1.3.0
	golang.org/x/sync v0.22.0
)
