// Writes a self-extractor with Go's archive/zip: STUB's bytes, then a zip of the files under FOLDER (named
// from FOLDER's parent). With OFFSET 1 the writer is told the stub's length (zip.Writer.SetOffset), so its
// offsets count from the start of the file, as `zip -A` makes them; with 0 they count from the archive's start.
//
// usage: go run zip-after-stub.go STUB FOLDER OUT OFFSET
package main

import (
	"archive/zip"
	"io"
	"os"
	"path/filepath"
)

func main() {
	stub, folder, out, offset := os.Args[1], os.Args[2], os.Args[3], os.Args[4]
	file, err := os.Create(out)
	check(err)
	data, err := os.ReadFile(stub)
	check(err)
	_, err = file.Write(data)
	check(err)
	writer := zip.NewWriter(file)
	if offset == "1" {
		writer.SetOffset(int64(len(data)))
	}
	base := filepath.Dir(folder)
	check(filepath.Walk(folder, func(path string, info os.FileInfo, err error) error {
		check(err)
		name, err := filepath.Rel(base, path)
		check(err)
		header, err := zip.FileInfoHeader(info)
		check(err)
		header.Name = filepath.ToSlash(name)
		if info.IsDir() {
			header.Name += "/"
		} else {
			header.Method = zip.Deflate
		}
		entry, err := writer.CreateHeader(header)
		check(err)
		if !info.IsDir() {
			source, err := os.Open(path)
			check(err)
			defer source.Close()
			_, err = io.Copy(entry, source)
			check(err)
		}
		return nil
	}))
	check(writer.Close())
	check(file.Close())
}

func check(err error) {
	if err != nil {
		panic(err)
	}
}
