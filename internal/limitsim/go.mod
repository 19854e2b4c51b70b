module github.com/semacat/sem/internal/limitsim

go 1.25.0

require (
	github.com/semacat/sem v0.1.0
	github.com/semacat/sem/benchmarks v0.1.0
)
