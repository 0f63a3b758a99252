// Package config reads the harness's settings file and decides, for each
// setting, which value wins and where it came from.
//
// # The file
//
// The file is TOML, at $XDG_CONFIG_HOME/harness/config.toml, or
// ~/.config/harness/config.toml when XDG_CONFIG_HOME is unset ([Path],
// which finds the folder with package xdg, as the harness finds all its
// folders). A missing file is no error: everything then has its default.
//
//	model = "local/qwen2.5-coder:7b"     # the default model, PROVIDER/MODEL
//
//	[providers.local]
//	type = "ollama"
//	base_url = "http://127.0.0.1:11434"
//	num_ctx = 16384
//
//	[providers.lms]
//	type = "openai"
//	base_url = "http://127.0.0.1:1234/v1"
//	api_key_env = "LMSTUDIO_KEY"
//
// The keys:
//
//	model                  PROVIDER/MODEL, or MODEL alone (see Models below)
//	[providers.NAME]       a provider: a server and how to reach it
//	  type                 "ollama" (the native API) or "openai" (/v1/chat/completions)
//	  base_url             ollama: the server, as http://host:port
//	                       openai: the API's root, as http://host:port/v1 (required)
//	  num_ctx              ollama only: the context window in tokens, fixed for a run
//	  api_key_env          openai only: the environment variable holding the API key
//	[mcp.NAME]             an MCP server (see MCP servers below)
//
// # MCP servers
//
// Each [mcp.NAME] table declares an MCP server whose tools the model may
// call, as NAME.TOOL ([MCPServer]):
//
//	[mcp.files]
//	command = "mcp-server-files"          # a program spoken to over stdin and stdout
//	args = ["--root", "/home/me/notes"]
//	env = { PATH = "/usr/bin:/bin" }      # its whole environment
//	tools = ["read", "search"]            # only these tools (default: all)
//	timeout = "30s"                       # its start, and each call
//
//	[mcp.web]
//	url = "http://127.0.0.1:8080/mcp"     # streamable HTTP
//	enabled = false                       # only when --mcp web asks for it
//
// A server has a command or a url, not both; args and env go with a
// command. NAME is made of letters, digits, - and _. The program gets the
// environment env names and nothing else; as the file holds no keys, a
// variable named like a secret (fence.SecretVar), a value or an argument
// that looks like one (fence.Leak), and a url with a user, a password or a
// token in it are refused.
//
// # Types
//
// This package knows no backend itself: the harness gives it the types of
// provider it is built with, as [Types], each saying its name, its default
// address, how an address is read, the variables it reads and which of
// num_ctx and api_key_env its providers have. Every type has a built-in
// provider of its name, which a file may redefine (its type may then be
// left out). The harness is built with two:
//
//	ollama   type "ollama", base_url http://127.0.0.1:11434, num_ctx 16384
//	openai   type "openai", base_url https://api.openai.com/v1, api_key_env OPENAI_API_KEY
//
// Only the provider named openai has a key variable unless the file names
// one, and it sends OPENAI_API_KEY only to OpenAI's own server (https, host
// api.openai.com) or to the address OPENAI_BASE_URL gives, the variable set
// beside it as OpenAI's own libraries pair them. A key set for OpenAI is
// never sent to another server: an address from Flags.BaseURL or from the
// file's base_url gets no key unless the file names its variable. A server
// given by --base-url that wants a key gets it either way the user pairs
// them: OPENAI_BASE_URL and OPENAI_API_KEY set together, or a provider in
// the file with its base_url and api_key_env.
//
// The file never holds a key: api_key is refused, with a pointer to
// api_key_env. A provider name may not contain "/".
//
// A file that is not valid TOML, has a key it should not, or a value of the
// wrong type or out of range, is an [*Error] naming the file, the line and
// the key, as in
//
//	/home/me/.config/harness/config.toml:7: providers.lms.num_ctx: invalid value: num_ctx is for ollama providers only
//
// wrapping [ErrSyntax], [ErrUnknownKey] or [ErrInvalid].
//
// # Models
//
// A model is written PROVIDER/MODEL: "lms/qwen3-8b", "ollama/hf.co/org/m:Q4".
// Everything after the first "/" is the model's name on that provider. A
// name with no "/" runs on the provider Flags.Provider names, else on the
// default provider: the one the file's model names, or else the first
// type's built-in provider, ollama. A name whose part before the first "/"
// is no provider is an error wrapping [ErrUnknownProvider], which lists the
// providers there are (a model whose name holds a "/" is written
// PROVIDER/NAME, as ollama/hf.co/org/m:Q4).
//
// # Precedence
//
// [Types.Resolve] is a pure function: it is given the file, the flags that
// were set and a way to read the environment, and reads nothing itself. Each
// setting takes the first value it finds in this order:
//
//	setting       flag            environment                        file                      default
//	model         Flags.Model     HARNESS_MODEL                      model                     qwen2.5-coder:7b
//	provider      Flags.Model's,  HARNESS_MODEL's                    model's                   ollama
//	              Flags.Provider
//	base_url      Flags.BaseURL   OLLAMA_HOST (provider ollama),     providers.NAME.base_url   by provider, above
//	                              OPENAI_BASE_URL (provider openai)
//	num_ctx       Flags.NumCtx    -                                  providers.NAME.num_ctx    16384
//	api_key_env   -               -                                  providers.NAME.api_key_env OPENAI_API_KEY (provider openai, see above)
//	api_key       -               the variable api_key_env names     -                         none
//
// The provider is the one the model names as PROVIDER/MODEL, unless the
// model came from the environment or the file and Flags.Provider names
// another: a flag beats the environment and the file there too, and a
// flag's PROVIDER/MODEL beats Flags.Provider. The type follows from the
// provider. The environment's
// addresses apply only to the built-in providers they belong to, so that a
// variable set for other programs never redirects a provider the file
// defines. num_ctx is resolved only for providers of a type that sends one
// (ollama), api_key_env and api_key only for those of a type that takes a
// key (openai).
//
// Every resolved [Setting] carries its [Source]; [Settings.Rows] lists them
// for display, the API key as [Secret] shows it: "[redacted]", never the
// key. An address or number that is not valid is an error naming where it
// came from.
package config
