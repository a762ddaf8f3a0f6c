module github.com/atolldb/atoll

go 1.26
