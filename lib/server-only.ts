// What `import "#server-only"` loads on the server and in plain Node: nothing. In a browser bundle
// package.json's "imports" maps it to no module, so a client component that reaches a module
// marked with it fails the build.
export {};
