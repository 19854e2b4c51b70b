module github.com/semacat/sem/internal/figures

go 1.25.0

require (
	github.com/semacat/sem/benchmarks v0.1.0
	github.com/stretchr/testify v1.12.1
	go.uber.org/goleak v1.3.0
)

require (
	github.com/aclements/go-moremath v0.0.0-20210112150236-f10218a38794 // indirect
	go.yaml.in/yaml/v3 v3.0.5 // indirect
	golang.org/x/perf v0.0.0-20250813145418-2f7363a06fe1 // indirect
)
