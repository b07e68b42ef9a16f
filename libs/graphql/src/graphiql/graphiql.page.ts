/** The files GraphiQL needs, served from the installed packages (no CDN): name → package file and type. */
export const GRAPHIQL_ASSETS: Record<string, { packageName: string; file: string; type: string }> = {
  'react.production.min.js': { packageName: 'react', file: 'umd/react.production.min.js', type: 'text/javascript; charset=utf-8' },
  'react-dom.production.min.js': { packageName: 'react-dom', file: 'umd/react-dom.production.min.js', type: 'text/javascript; charset=utf-8' },
  'graphiql.min.js': { packageName: 'graphiql', file: 'graphiql.min.js', type: 'text/javascript; charset=utf-8' },
  'graphiql.min.css': { packageName: 'graphiql', file: 'graphiql.min.css', type: 'text/css; charset=utf-8' },
};

/** Starts GraphiQL on /graphql; a separate file so the page needs no inline script. */
export const GRAPHIQL_INIT_SCRIPT = `'use strict';
const fetcher = GraphiQL.createFetcher({ url: new URL('/graphql', window.location.href).href });
ReactDOM.createRoot(document.getElementById('graphiql')).render(React.createElement(GraphiQL, { fetcher }));
`;

export const GRAPHIQL_PAGE = `<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8" />
    <title>Parley GraphiQL</title>
    <link rel="stylesheet" href="/graphiql/assets/graphiql.min.css" />
    <style>body { margin: 0; height: 100vh; } #graphiql { height: 100vh; }</style>
  </head>
  <body>
    <div id="graphiql">Loading GraphiQL…</div>
    <script src="/graphiql/assets/react.production.min.js"></script>
    <script src="/graphiql/assets/react-dom.production.min.js"></script>
    <script src="/graphiql/assets/graphiql.min.js"></script>
    <script src="/graphiql/assets/init.js"></script>
  </body>
</html>
`;
